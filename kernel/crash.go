package kernel

import (
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/pathnotes/pathnotes/internal/memlimit"
)

// GuardProcess prepares the kernel process for running out of memory.
//
// The Go runtime writes its fatal errors (out of memory, concurrent map
// writes, stack exhaustion) to file descriptor 2, which the capture (stdio,
// nil when there is none) sends to the cells through a pipe that nobody
// reads once the process is dying. GuardProcess starts the crash monitor
// (crashmonitor.go), which writes the error's headline ("fatal error: out
// of memory") and the cell that was running to the standard error the
// process had before the capture, which Jupyter shows in its own log, and
// to logPath (the kernel's log file) when it is set; and then the goroutine
// traces, which show the failing allocation (runtime.mallocgc with the size
// asked for) and the frames of the code that asked, to logPath or, without
// one, to that standard error. When the monitor cannot start, the runtime
// writes the traces there itself, and the headline reaches them only when
// the capture forwards it in time.
//
// Unless GOMEMLIMIT is set, it also sets the Go runtime's soft memory limit
// below the process's cgroup memory limit and address-space and data
// rlimits, or below the machine's RAM when it has none
// (memlimit.SetGoLimit), so that the garbage collector works harder before
// the limit is reached rather than after. Problems are logged, never fatal.
func GuardProcess(stdio *StdioCapture, logPath string, log *slog.Logger) {
	if err := startMonitor(stdio, logPath); err != nil {
		log.Warn("no crash monitor: the line naming a fatal error may not reach the log", "err", err)
		crashOutput(stdio, logPath, log)
	}
	if limit, ok := memlimit.SetGoLimit(); ok {
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
