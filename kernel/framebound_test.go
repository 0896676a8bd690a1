package kernel

import (
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

// zmtpGreeting is a ZMTP 3.0 greeting with the NULL mechanism, as a client
// sends it.
func zmtpGreeting() []byte {
	g := make([]byte, greetingSize)
	g[0], g[9] = 0xff, 0x7f
	g[10], g[11] = 3, 0
	copy(g[12:], "NULL")
	return g
}

// zmtpReady is the READY command of a NULL handshake from a socket of type
// sockType.
func zmtpReady(sockType string) []byte {
	body := []byte("\x05READY\x0bSocket-Type")
	body = binary.BigEndian.AppendUint32(body, uint32(len(sockType)))
	body = append(body, sockType...)
	return append([]byte{0x04, byte(len(body))}, body...)
}

// hugeFrame is a long frame header claiming size bytes, with flags (beside
// the long flag).
func hugeFrame(flags byte, size uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{flags | flagLong}, size)
}

// kernelPort is one of the kernel's five ports and the socket type a client
// of it has.
type kernelPort struct {
	name, peerType string
	port           int
}

func kernelPorts(ci ConnectionInfo) []kernelPort {
	return []kernelPort{{"shell", "DEALER", ci.ShellPort}, {"control", "DEALER", ci.ControlPort},
		{"stdin", "DEALER", ci.StdinPort}, {"iopub", "SUB", ci.IOPubPort}, {"hb", "REQ", ci.HBPort}}
}

// sendRaw dials port on 127.0.0.1, writes the greeting and data, and
// returns the connection.
func sendRaw(t testing.TB, port int, data ...[]byte) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range append([][]byte{zmtpGreeting()}, data...) {
		if _, err := conn.Write(d); err != nil {
			conn.Close()
			t.Fatalf("port %d: write: %v", port, err)
		}
	}
	return conn
}

// waitClosed reads conn until the kernel closes it.
func waitClosed(t testing.TB, conn net.Conn, what string) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(waitFor))
	_, err := io.Copy(io.Discard, conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("%s: the kernel kept the connection open", what)
	}
}

// checkServing asserts that the kernel answers kernel_info on shell and
// control, and echoes on hb, to a client that connects now.
func checkServing(t testing.TB, tk *testKernel) {
	t.Helper()
	c := connect(t, tk, testKey)
	for _, ch := range c.requestChannels() {
		id := c.send(ch.sock, "kernel_info_request", map[string]any{})
		if r := content(t, c.reply(ch.msgs, id)); r["status"] != "ok" {
			t.Fatalf("kernel_info_reply %v", r)
		}
	}
	if err := c.hb.Send(zmq4.NewMsgString("ping")); err != nil {
		t.Fatal(err)
	}
	if m, err := c.hb.Recv(); err != nil || string(m.Frames[0]) != "ping" {
		t.Fatalf("heartbeat: %q, %v", m.Frames, err)
	}
}

// TestHugeFrameClosesOnlyThatConnection sends frame headers claiming 2^40
// and 2^50 bytes to each port, as the first frame (the handshake) and after
// a valid handshake: zmq4 would allocate that much before reading. The
// kernel must close that connection, log why, and serve on.
func TestHugeFrameClosesOnlyThatConnection(t *testing.T) {
	tk := startKernel(t, "")
	before := connect(t, tk, testKey)
	for _, p := range kernelPorts(tk.k.Connection()) {
		for _, size := range []uint64{1 << 40, 1 << 50, DefaultMaxFrame + 1} {
			for _, handshake := range []bool{false, true} {
				what := fmt.Sprintf("%s, %d bytes, after handshake %v", p.name, size, handshake)
				frames := [][]byte{hugeFrame(0x04, size)}
				if handshake {
					frames = [][]byte{zmtpReady(p.peerType), hugeFrame(0, size)}
				}
				waitClosed(t, sendRaw(t, p.port, frames...), what)
				want := fmt.Sprintf("port=%s peer=127.0.0.1:", p.name)
				if logs := tk.logs.String(); !strings.Contains(logs, want) || !strings.Contains(logs, fmt.Sprintf("claimed=%d", size)) {
					t.Fatalf("%s: no log line with %q and the claimed size", what, want)
				}
			}
		}
	}
	// A client connected before the attacks still gets answers.
	id := before.send(before.shell, "kernel_info_request", map[string]any{})
	if r := content(t, before.reply(before.shellMsgs, id)); r["status"] != "ok" {
		t.Fatalf("kernel_info_reply %v", r)
	}
	checkServing(t, tk)
}

// readyWith is a READY command with the given body after its name.
func readyWith(props string) []byte {
	body := "\x05READY" + props
	return append([]byte{0x04, byte(len(body))}, body...)
}

// prop is a READY property.
func prop(k, v string) string {
	return string(append(append([]byte{byte(len(k))}, k...), binary.BigEndian.AppendUint32(nil, uint32(len(v)))...)) + v
}

// badHandshakes are READY commands on which zmq4 panics, ending the
// process (a missing or unknown Socket-Type, a property past the end), and
// other first frames it must not get.
var badHandshakes = map[string][]byte{
	"no Socket-Type":         readyWith(prop("Identity", "x")),
	"misspelt Socket-Type":   readyWith(prop("SockeT-type", "SUB")),
	"upper-case key only":    readyWith(prop("SOCKET-TYPE", "DEALER")),
	"unknown type":           readyWith(prop("Socket-Type", "BOGUS")),
	"bad type after good":    readyWith(prop("Socket-Type", "DEALER") + prop("socket-type", "")),
	"key past the end":       readyWith("\x03abc"),
	"value past the end":     readyWith("\x0bSocket-Type\x00\x00\x00\x09DEALER"),
	"not READY":              append([]byte{0x04, 6}, "\x05HELLO"...),
	"message, not a command": {0x00, 0x01, 'x'},
}

// TestBadHandshakeClosesOnlyThatConnection sends each bad handshake to each
// port: the kernel must close that connection, log why, and serve on.
func TestBadHandshakeClosesOnlyThatConnection(t *testing.T) {
	tk := startKernel(t, "")
	for _, p := range kernelPorts(tk.k.Connection()) {
		for what, frame := range badHandshakes {
			waitClosed(t, sendRaw(t, p.port, frame), p.name+", "+what)
		}
	}
	if got := strings.Count(tk.logs.String(), "connection closed: bad handshake"); got != 5*len(badHandshakes) {
		t.Errorf("%d bad handshakes logged, want %d", got, 5*len(badHandshakes))
	}
	checkServing(t, tk)
}

// TestWireSettings checks how the bounds are read: the Options first, then
// the environment, then the defaults; sizes in bytes, KiB, MiB or GiB.
func TestWireSettings(t *testing.T) {
	for in, want := range map[string]uint64{"64MiB": 64 << 20, "1048576": 1 << 20, " 2 GiB ": 2 << 30, "3KiB": 3 << 10} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-5", "12MB", "lots", "99999999999GiB"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted", in)
		}
	}
	for _, in := range []string{"", "0", "-1", "1KiB", "2000000"} {
		if _, err := parseCount(in); err == nil {
			t.Errorf("parseCount(%q) accepted", in)
		}
	}
	discard := slog.New(slog.DiscardHandler)
	l, err := newWireLimits(Options{}, discard)
	if err != nil || l.maxFrame != DefaultMaxFrame || l.maxMessage != DefaultMaxMessage || l.maxConns != DefaultMaxConnections ||
		l.unverified.left.Load() <= 0 || l.unverified.left.Load() > DefaultMaxUnverified {
		t.Errorf("defaults: %+v, %d unverified, %v", l, l.unverified.left.Load(), err)
	}
	for _, c := range []struct {
		env, value string
		opts       Options
		want       uint64
		got        func(wireLimits) uint64
	}{
		{MaxFrameEnv, "1KiB", Options{MaxFrame: 77}, 1 << 10, func(l wireLimits) uint64 { return l.maxFrame }},
		{MaxMessageEnv, "3MiB", Options{MaxMessage: 77}, 3 << 20, func(l wireLimits) uint64 { return l.maxMessage }},
		{MaxUnverifiedEnv, "5GiB", Options{MaxUnverified: 77}, 5 << 30, func(l wireLimits) uint64 { return uint64(l.unverified.left.Load()) }},
		{MaxConnectionsEnv, "12", Options{MaxConnections: 77}, 12, func(l wireLimits) uint64 { return uint64(l.maxConns) }},
	} {
		t.Setenv(c.env, c.value)
		if l, err := newWireLimits(Options{}, discard); err != nil || c.got(l) != c.want {
			t.Errorf("%s=%s: %d, %v; want %d", c.env, c.value, c.got(l), err, c.want)
		}
		if l, err := newWireLimits(c.opts, discard); err != nil || c.got(l) != 77 {
			t.Errorf("the Options win over %s: %d, %v", c.env, c.got(l), err)
		}
		t.Setenv(c.env, "big")
		if _, err := New(Options{Connection: ConnectionInfo{Transport: "tcp", IP: "127.0.0.1"}, Interpreter: panicky{}}); err == nil ||
			!strings.Contains(err.Error(), c.env) {
			t.Errorf("New with a bad %s: %v", c.env, err)
		}
		t.Setenv(c.env, "")
	}
	if _, err := newWireLimits(Options{MaxMessage: -1}, discard); err == nil || !strings.Contains(err.Error(), "Options.MaxMessage") {
		t.Errorf("a negative Options.MaxMessage: %v", err)
	}
}

// TestMaxFrameSetting checks that a frame at the bound that
// PATHNOTES_MAX_FRAME sets passes, and one byte more closes the
// connection.
func TestMaxFrameSetting(t *testing.T) {
	// Through a live kernel: 1 KiB passes on hb, 1 KiB + 1 closes.
	t.Setenv(MaxFrameEnv, "1KiB")
	tk := startKernel(t, "")
	hb := tk.k.Connection().HBPort
	ok := sendRaw(t, hb, zmtpReady("REQ"), []byte{0x01, 0}, hugeFrame(0, 1<<10), make([]byte, 1<<10))
	defer ok.Close()
	ok.SetReadDeadline(time.Now().Add(waitFor))
	// The greeting, READY, and the echo: an empty frame and the 1 KiB one.
	reply := make([]byte, 4<<10)
	if _, err := io.ReadAtLeast(ok, reply, greetingSize+len(zmtpReady("REP"))+2+9+1<<10); err != nil {
		t.Fatalf("a 1 KiB heartbeat under a 1 KiB bound was not echoed: %v", err)
	}
	waitClosed(t, sendRaw(t, hb, zmtpReady("REQ"), hugeFrame(0, 1<<10+1)), "1 KiB + 1")
	if !strings.Contains(tk.logs.String(), "claimed=1025 max=1024") {
		t.Error("no log of the frame over the bound")
	}
	checkServing(t, tk)
}

// TestSilentPeerDoesNotBlockConnections connects to every port and sends
// nothing: a new connection must be greeted at once all the same, and the
// silent ones closed after the handshake timeout.
func TestSilentPeerDoesNotBlockConnections(t *testing.T) {
	defer func(d time.Duration) { handshakeTimeout = d }(handshakeTimeout)
	handshakeTimeout = 500 * time.Millisecond
	tk := startKernel(t, "")
	ci := tk.k.Connection()
	for _, p := range kernelPorts(ci) {
		silent, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)))
		if err != nil {
			t.Fatal(err)
		}
		defer silent.Close()
	}
	time.Sleep(50 * time.Millisecond) // the silent peers are accepted first
	// The kernel greets a new connection at once, whatever the silent one
	// does.
	for _, p := range kernelPorts(ci) {
		conn := sendRaw(t, p.port)
		defer conn.Close()
		conn.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := io.ReadFull(conn, make([]byte, greetingSize)); err != nil {
			t.Fatalf("%s: no greeting for a new connection behind a silent one: %v", p.name, err)
		}
	}
	checkServing(t, tk)
	for deadline := time.Now().Add(waitFor); strings.Count(tk.logs.String(), "connection closed: no handshake") < 5; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the silent peers were not closed, or not logged")
		}
	}
}

// FuzzPort sends a valid greeting and then arbitrary bytes to one of a live
// kernel's ports, and checks that the kernel still answers.
func FuzzPort(f *testing.F) {
	for port := range uint8(5) {
		f.Add(port, hugeFrame(0x04, 1<<40))
		f.Add(port, hugeFrame(0, 1<<50))
		f.Add(port, append(zmtpReady("DEALER"), hugeFrame(0x01, 1<<62)...))
		f.Add(port, append(zmtpReady("SUB"), hugeFrame(0, ^uint64(0))...))
		f.Add(port, []byte{0x04, 0xff})
		for _, frame := range badHandshakes {
			f.Add(port, frame)
		}
	}
	f.Setenv(MaxFrameEnv, "1MiB") // the kernel need not allocate much for a fuzzed size
	tk := startKernel(f, "")
	ports := kernelPorts(tk.k.Connection())
	f.Fuzz(func(t *testing.T, port uint8, data []byte) {
		conn := sendRaw(t, ports[int(port)%len(ports)].port, data)
		conn.Close()
		checkServing(t, tk)
	})
}

// TestHugeFrameOverIPC checks the bound on the ipc transport (unix
// sockets), whose five sockets are files.
func TestHugeFrameOverIPC(t *testing.T) {
	dir := t.TempDir()
	tk := startKernelOn(t, ConnectionInfo{Transport: "ipc", IP: filepath.Join(dir, "k"),
		ShellPort: 1, IOPubPort: 2, StdinPort: 3, ControlPort: 4, HBPort: 5}, "", nil)
	for _, p := range kernelPorts(tk.k.Connection()) {
		conn, err := net.Dial("unix", fmt.Sprintf("%s-%d", filepath.Join(dir, "k"), p.port))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range [][]byte{zmtpGreeting(), zmtpReady(p.peerType), hugeFrame(0, 1<<50)} {
			if _, err := conn.Write(b); err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
		}
		waitClosed(t, conn, p.name)
		if !strings.Contains(tk.logs.String(), "port="+p.name) {
			t.Errorf("%s: no log of the frame over the bound", p.name)
		}
	}
	checkServing(t, tk)
}
