package kernel

import (
	"log/slog"
	"os"
	"runtime/debug"
	"runtime/metrics"

	"github.com/pathnotes/pathnotes/internal/memlimit"
)

// GuardProcess prepares the kernel process for running out of memory.
//
// The Go runtime writes its fatal errors (out of memory, concurrent map
// writes, stack exhaustion) to file descriptor 2, which the capture (stdio,
// nil when there is none) sends to the cells through a pipe that nobody
// reads once the process is dying. GuardProcess has the runtime write them
// also to logPath (the kernel's log file) when it is set, and otherwise to
// the standard error the process had before the capture, which Jupyter
// shows in its own log. The runtime prints the line naming the error
// ("fatal error: out of memory") before it counts as crashing, so that line
// reaches them only when the capture forwards it in time (Go issue 76859);
// the goroutine traces that follow always do, and show the failing
// allocation (runtime.mallocgc with the size asked for) and the frames of
// the code that asked.
//
// Unless GOMEMLIMIT is set, it also sets the Go runtime's soft memory limit
// below the process's cgroup memory limit and address-space and data
// rlimits, so that the garbage collector works harder before the limit
// is reached rather than after. Problems are logged, never fatal.
func GuardProcess(stdio *StdioCapture, logPath string, log *slog.Logger) {
	crashOutput(stdio, logPath, log)
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(sample)
	held := uint64(0)
	if sample[0].Value.Kind() == metrics.KindUint64 {
		held = sample[0].Value.Uint64()
	}
	if limit, ok := memlimit.GoLimit(held); ok {
		debug.SetMemoryLimit(int64(min(limit.Bytes, 1<<62)))
		log.Info("Go memory limit set", "limit", memlimit.FormatBytes(limit.Bytes), "under", limit.From)
	}
}

// crashOutput sends the runtime's fatal errors to logPath or, when it is
// empty, to the standard error from before the capture.
func crashOutput(stdio *StdioCapture, logPath string, log *slog.Logger) {
	var out *os.File
	switch {
	case logPath != "":
		f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			log.Warn("fatal runtime errors will not reach the log file", "err", err)
			return
		}
		defer f.Close() // SetCrashOutput keeps a duplicate
		out = f
	case stdio != nil:
		out = stdio.OriginalStderr()
	default:
		return // standard error is not captured: the runtime writes there already
	}
	if err := debug.SetCrashOutput(out, debug.CrashOptions{}); err != nil {
		log.Warn("fatal runtime errors go to the captured standard error only", "err", err)
	}
}
