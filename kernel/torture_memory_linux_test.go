package kernel

import (
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/internal/rlimittest"
)

// manyFramesEnv marks the child process of TestTortureManyFrameMessages.
const manyFramesEnv = "PATHNOTES_TEST_MANY_FRAMES"

// TestTortureManyFrameMessages runs a kernel in a child process under an
// address-space limit 1 GiB above its size, with a bound of 128 MiB on a
// message and 128 MiB on what all connections together hold before a
// signature is checked (the default under that limit), and sends it,
// unsigned, messages of many 32 MiB frames: one of 48 frames on each port,
// then, on 12 shell connections at once, 3 frames each of a message that
// does not end. The frame bound (256 MiB) lets each frame pass; a kernel
// that held every frame of a message until its end died of it. It must
// close the connections over the bounds, only those, and serve on: the
// torture client, a new client, and a cell of 4 MiB from a client whose
// messages verified while the unverified ones hold all the budget but
// 33 MiB at most; and the budget must be whole once they close.
func TestTortureManyFrameMessages(t *testing.T) {
	if os.Getenv(manyFramesEnv) != "" {
		manyFramesChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTortureManyFrameMessages$", "-test.count=1", "-test.v")
	// glibc reserves 64 MiB of address space for each thread that
	// allocates (cgo's threads do), which the limit counts as it counts
	// the heap: two such arenas keep that out of what is measured.
	cmd.Env = append(os.Environ(), manyFramesEnv+"=1", "MALLOC_ARENA_MAX=2",
		"PATHNOTES_MAX_MESSAGE=128MiB", "PATHNOTES_MAX_UNVERIFIED=128MiB", "GOMEMLIMIT=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the kernel under the limit: %v\n%s", err, tail(string(out), 6000))
	}
	t.Logf("child:\n%s", tail(string(out), 2000))
}

// manyFramesChild is TestTortureManyFrameMessages in the child process.
func manyFramesChild(t *testing.T) {
	frame := make([]byte, 32<<20) // before the limit: it counts in the size
	tk, c := startTorture(t)
	rlimittest.LimitAddressSpace(t, 1<<30)
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmSize") {
				t.Log("limit set at", line)
			}
		}
	}
	GuardProcess(nil, "", slog.New(slog.DiscardHandler))

	// One message of 48 frames of 32 MiB on each port: 1.5 GiB.
	for _, p := range kernelPorts(tk.k.Connection()) {
		conn := handshaken(t, p.port, p.peerType)
		for range 48 {
			if _, err := conn.Write(hugeFrame(flagMore, uint64(len(frame)))); err != nil {
				break
			}
			if _, err := conn.Write(frame); err != nil {
				break
			}
		}
		waitClosed(t, conn, p.name+": 48 frames of 32 MiB")
		conn.Close()
	}
	// Three frames and 64 bytes each pass; the fourth's header goes over.
	if n := strings.Count(tk.logs.String(), `err="message of 4 frames and 134217984 bytes so far is over the bound of 134217728"`); n != 5 {
		var closed []string
		for _, line := range strings.Split(tk.logs.String(), "\n") {
			if strings.Contains(line, "connection closed") {
				closed = append(closed, line)
			}
		}
		t.Errorf("%d messages over the bound logged, want 5:\n%s", n, strings.Join(closed, "\n"))
	}
	assertAlive(t, c, "a message of 48 frames of 32 MiB on each port")

	// 12 connections that each send 3 frames of 32 MiB of a message that
	// does not end: 1.1 GiB in all, 96 MiB each.
	var wg sync.WaitGroup
	conns := make([]net.Conn, 12)
	for i := range conns {
		conns[i] = handshaken(t, tk.k.Connection().ShellPort, "DEALER")
		defer conns[i].Close()
		wg.Go(func() {
			for range 3 {
				if _, err := conns[i].Write(hugeFrame(flagMore, uint64(len(frame)))); err != nil {
					return
				}
				if _, err := conns[i].Write(frame); err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	open := 0
	for _, conn := range conns {
		if isOpen(conn) {
			open++
		}
	}
	// 128 MiB hold one message of 96 MiB whole, and the start of another.
	if open < 1 || open > 2 {
		t.Errorf("%d of 12 connections of 96 MiB each open under a budget of 128 MiB, want 1 or 2", open)
	}
	if !strings.Contains(tk.logs.String(), "connection closed: over the budget") {
		t.Error("no log of a connection over the budget")
	}
	// The budget is spent but for 33 MiB at most: a verified client's large
	// cell passes, and so does a new client's first request, which is
	// small.
	if left := tk.k.wire.unverified.left.Load(); left > 33<<20 {
		t.Errorf("%d bytes of the budget left with %d connections open", left, open)
	}
	big := strings.Repeat("x", 4<<20)
	if v := c.value("len(`" + big + "`)"); v != "4194304" {
		t.Errorf("a 4 MiB cell while the budget is spent: %s", v)
	}
	assertAlive(t, c, "messages that do not end, over the budget")
	assertAlive(t, connect(t, tk, testKey), "messages that do not end, from a new client")
	// What the connections drew on the budget comes back when they end.
	for _, conn := range conns {
		conn.Close()
	}
	for deadline := time.Now().Add(waitFor); tk.k.wire.unverified.left.Load() != 128<<20; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes of the budget of 128 MiB left after every connection closed", tk.k.wire.unverified.left.Load())
		}
	}
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmPeak") || strings.HasPrefix(line, "VmSize") {
				t.Log(line)
			}
		}
	}
}
