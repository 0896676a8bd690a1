package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/pathnotes/pathnotes/display"
	"github.com/pathnotes/pathnotes/kernel"
)

// Environment variables of the kernel's log.
const (
	logFileEnv  = "PATHNOTES_LOG"       // a file to log to instead of standard error
	logLevelEnv = "PATHNOTES_LOG_LEVEL" // debug (every message), info, warn (default) or error
)

// Kernel is `pathnotes kernel CONNECTION_FILE`: the Jupyter kernel, with
// cells run in sessions that newSession starts.
func Kernel(args []string, newSession NewSession) (err error) {
	fs := flag.NewFlagSet("kernel", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: pathnotes kernel CONNECTION_FILE\n\n"+
			"Runs the kernel; Jupyter front ends start it through the kernelspec that\n"+
			"`pathnotes install` writes. The log goes to standard error, or to the file\n"+
			"$%s; $%s=debug logs every message with its type and id.\n"+
			"$%s and $%s name files to write a CPU profile of the kernel's\n"+
			"run and a heap profile at its end to, for go tool pprof.\n",
			logFileEnv, logLevelEnv, cpuProfileEnv, heapProfileEnv)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one connection file, got %d arguments", ErrUsage, fs.NArg())
	}
	ci, err := kernel.ReadConnectionFile(fs.Arg(0))
	if err != nil {
		return err
	}
	stopProfiles, err := startProfiles()
	if err != nil {
		return err
	}
	defer func() {
		if perr := stopProfiles(); perr != nil && err == nil {
			err = perr
		}
	}()

	// Compiled code that prints to the process's stdout or stderr must reach
	// the cells, so both descriptors are captured; the log keeps the real
	// stderr.
	logOut := io.Writer(os.Stderr)
	stdio, captureErr := kernel.CaptureStdio()
	if captureErr == nil {
		defer stdio.Close()
		logOut = stdio.OriginalStderr()
	}
	log, closeLog, err := kernelLogger(logOut)
	if err != nil {
		return err
	}
	defer closeLog()
	kernel.GuardProcess(stdio, os.Getenv(logFileEnv), log)
	if captureErr != nil {
		log.Warn("output of compiled code goes to the terminal, not the cells", "err", captureErr)
	}

	historyPath, err := kernel.DefaultHistoryPath()
	if err != nil {
		log.Warn("history kept in memory only", "err", err)
	}
	history, warnings, err := kernel.OpenHistory(historyPath)
	if err != nil {
		log.Warn("history kept in memory only", "err", err)
		history, _, _ = kernel.OpenHistory("")
	}
	defer history.Close()
	for _, w := range warnings {
		log.Warn("history", "err", w)
	}

	sess, err := newSession()
	if err != nil {
		return err
	}
	defer sess.Close()
	defer display.SetPublisher(nil)

	k, err := kernel.New(kernel.Options{
		Connection:  ci,
		Interpreter: sess,
		History:     history,
		Log:         log,
		Version:     kernelVersion(),
		Stdio:       stdio,
	})
	if err != nil {
		return err
	}
	// SIGTERM (or stop, when the front end is gone) ends the kernel.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	// SIGINT interrupts the running cell, as Ctrl-C in a terminal would; it
	// never stops the kernel.
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)
	go func() {
		for range interrupts {
			log.Info("SIGINT: interrupting the running cell")
			k.Interrupt()
		}
	}()
	go watchParent(ctx, stop, log)
	err = k.Run(ctx)
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return nil // SIGTERM, or the front end is gone: a normal end
	}
	return err
}

// watchParent stops the kernel when the process that started it exits, as
// ipykernel does: jupyter_client sets JPY_PARENT_PID, and a front end that
// crashes must not leave kernels running forever. The parent is gone when
// this process has been handed to another one (init or a subreaper).
func watchParent(ctx context.Context, stop func(), log *slog.Logger) {
	if os.Getenv("JPY_PARENT_PID") == "" {
		return
	}
	parent := os.Getppid()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if os.Getppid() != parent {
				log.Warn("the front end that started the kernel has exited; shutting down", "parent_pid", parent)
				stop()
				return
			}
		}
	}
}

// kernelVersion is the module version (and revision) of Version,
// without the Go version and platform, which kernel_info reports apart.
func kernelVersion() string {
	v, _, _ := strings.Cut(strings.TrimPrefix(Version(), "pathnotes "), " (go")
	return v
}

// kernelLogger returns the kernel's logger, writing to $PATHNOTES_LOG if set
// and to stderr otherwise, at the level $PATHNOTES_LOG_LEVEL names. The
// default, warn, keeps a console's terminal clean.
func kernelLogger(stderr io.Writer) (*slog.Logger, func(), error) {
	level := slog.LevelWarn
	if s := os.Getenv(logLevelEnv); s != "" {
		if err := level.UnmarshalText([]byte(s)); err != nil {
			return nil, nil, fmt.Errorf("%s=%q: want debug, info, warn or error", logLevelEnv, s)
		}
	}
	out, closeLog := stderr, func() {}
	if path := os.Getenv(logFileEnv); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", logFileEnv, err)
		}
		out, closeLog = f, func() { f.Close() }
	}
	return slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: level})), closeLog, nil
}
