package kernel

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/internal/rlimittest"
)

// Environment of the crashing child: what kills it, whether GuardProcess
// runs, and the log file it is given.
const (
	crashModeEnv  = "PATHNOTES_TEST_CRASH"
	crashGuardEnv = "PATHNOTES_TEST_CRASH_GUARD"
	crashLogEnv   = "PATHNOTES_TEST_CRASH_LOG"
)

// crashSink keeps the child's huge allocation alive.
var crashSink []byte

// TestFatalErrorsReachTheLog runs the test binary again as a kernel would
// run: standard output and error captured, then a fatal runtime error. The
// error's headline ("fatal error: ...") and the cell that was running must
// reach the standard error from before the capture, and the log file when
// there is one; the crash's goroutine traces must reach the log file, or
// that standard error when there is none. Without GuardProcess all of it is
// lost in the capture.
func TestFatalErrorsReachTheLog(t *testing.T) {
	if mode := os.Getenv(crashModeEnv); mode != "" {
		crashChild(t, mode)
		return
	}
	logPath := filepath.Join(t.TempDir(), "kernel.log")
	// make([]byte, 30<<30) under ulimit -v: the trace shows the
	// 0x780000000-byte request and the frame that made it.
	oomTrace := []string{"runtime.mallocgc(0x780000000", "kernel.crashChild("}
	stackTrace := []string{"runtime.newstack(", "kernel.recurse("}
	// A cell that doubles a string, which the session does not check: the
	// kernel's many goroutines make a trace larger than a default pipe
	// buffer, which must not hang the dying process.
	cellTrace := []string{"runtime.concatstrings(", "yaegi/interp."}
	const oomLine, stackLine = "fatal error: out of memory", "fatal error: stack overflow"
	cellLines := []string{oomLine, "while running Cell In[1]:", "    s := \"pathnotes\"", "    for {"}
	for _, c := range []struct {
		mode, guard, log string
		trace            []string // frames the crash output shows
		head             []string // lines of the monitor's summary
		where            string   // where the trace goes: "stderr", "log" or "lost"
	}{
		{"oom", "1", "", oomTrace, []string{"runtime: out of memory: cannot allocate 32212254720-byte block", oomLine, "(no cell was running)"}, "stderr"},
		{"cell", "1", "", cellTrace, cellLines, "stderr"},
		{"cell", "1", logPath, cellTrace, cellLines, "log"},
		{"stack", "1", logPath, stackTrace, []string{stackLine}, "log"},
		{"oom", "0", "", oomTrace, nil, "lost"},
	} {
		os.Remove(logPath)
		cmd := exec.Command(os.Args[0], "-test.run=^TestFatalErrorsReachTheLog$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashModeEnv+"="+c.mode, crashGuardEnv+"="+c.guard, crashLogEnv+"="+c.log)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.WaitDelay = 10 * time.Second // the monitor holds standard error until it has written
		err := cmd.Run()
		what := c.mode + " guard=" + c.guard + " log=" + c.log
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("%s: child did not die: %v\nstderr:\n%s", what, err, stderr.String())
		}
		logged := ""
		if c.log != "" {
			data, err := os.ReadFile(c.log)
			if err != nil {
				t.Fatal(err)
			}
			logged = string(data)
		}
		for _, frame := range c.trace {
			if got, want := strings.Contains(stderr.String(), frame), c.where == "stderr"; got != want {
				t.Errorf("%s: %q on the real stderr: %v, want %v:\n%s", what, frame, got, want, stderr.String())
			}
			if got, want := strings.Contains(logged, frame), c.where == "log"; got != want {
				t.Errorf("%s: %q in the log file: %v, want %v:\n%s", what, frame, got, want, logged)
			}
		}
		if c.where == "lost" && strings.Contains(stderr.String(), "pathnotes kernel:") {
			t.Errorf("%s: a crash summary without GuardProcess:\n%s", what, stderr.String())
		}
		for _, line := range c.head {
			if got, want := strings.Contains(stderr.String(), line), true; got != want {
				t.Errorf("%s: %q on the real stderr: %v, want %v:\n%s", what, line, got, want, stderr.String())
			}
			if got, want := strings.Contains(logged, line), c.log != ""; got != want {
				t.Errorf("%s: %q in the log file: %v, want %v:\n%s", what, line, got, want, logged)
			}
		}
	}
}

// TestGuardSetsMemoryLimit runs the test binary again under an
// address-space limit 2 GiB above its size: GuardProcess must set the Go
// memory limit within those 2 GiB (and above half of them), unless
// GOMEMLIMIT is set, which it must leave alone.
func TestGuardSetsMemoryLimit(t *testing.T) {
	if os.Getenv(crashModeEnv) == "limit" {
		rlimittest.LimitAddressSpace(t, 2<<30)
		GuardProcess(nil, "", slog.New(slog.DiscardHandler))
		fmt.Printf("memory limit %d\n", debug.SetMemoryLimit(-1))
		return
	}
	for _, c := range []struct {
		gomemlimit string
		min, max   int64
	}{
		{"", 1 << 30, 2 << 30},
		{"3GiB", 3 << 30, 3 << 30},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGuardSetsMemoryLimit$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashModeEnv+"=limit", "GOMEMLIMIT="+c.gomemlimit)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("GOMEMLIMIT=%q: %v\n%s", c.gomemlimit, err, out)
		}
		var limit int64
		if _, err := fmt.Sscanf(string(out), "memory limit %d", &limit); err != nil || limit < c.min || limit > c.max {
			t.Errorf("GOMEMLIMIT=%q: %q (%v), want a limit in [%d, %d]", c.gomemlimit, out, err, c.min, c.max)
		}
	}
}

// crashChild captures stdio, guards the process unless told not to, and
// dies of the fatal error mode names.
func crashChild(t *testing.T, mode string) {
	stdio, err := CaptureStdio()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv(crashGuardEnv) == "1" {
		GuardProcess(stdio, os.Getenv(crashLogEnv), slog.New(slog.DiscardHandler))
	}
	switch mode {
	case "cell":
		c := connect(t, startKernel(t, ""), testKey)
		rlimittest.LimitAddressSpace(t, 512<<20)
		c.execute("s := \"pathnotes\"\nfor {\n\ts += s\n}", nil)
	case "oom":
		rlimittest.LimitAddressSpace(t, 512<<20)
		crashSink = make([]byte, 30<<30)
	case "stack":
		debug.SetMaxStack(1 << 20)
		recurse(0)
	}
	t.Fatalf("child survived %s", mode)
}

// recurse never returns: each call keeps a frame on the stack.
func recurse(n int) int {
	var frame [64]byte
	frame[n%64] = byte(n)
	return recurse(n+1) + int(frame[(n+1)%64])
}
