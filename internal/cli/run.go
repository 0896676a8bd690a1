package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/pathnotes/pathnotes/display"
	"github.com/pathnotes/pathnotes/internal/memlimit"
	"github.com/pathnotes/pathnotes/kernel/notebook"
)

// runFlags are the options of `pathnotes run`.
type runFlags struct {
	out     string
	timeout time.Duration
}

// Run is `pathnotes run`: it runs notebooks without Jupyter, each in a
// fresh session that newSession starts, and writes them with their outputs.
func Run(args []string, newSession NewSession) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var f runFlags
	fs.StringVar(&f.out, "out", ".", "write each notebook as `DIR`/NAME.ipynb (the default, the current directory, replaces a notebook run where it lies)")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "stop a cell that runs longer than `D` (0: no limit)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: pathnotes run [--out DIR] [--timeout D] NOTEBOOK.ipynb...\n\n"+
			"Runs every code cell of each notebook in order, in a fresh interpreter with the\n"+
			"kernel's options, from the notebook's directory, and writes the notebook with\n"+
			"its outputs and execution counts. A run stops at the first cell that fails,\n"+
			"unless the cell has the tag raises-exception; the notebook is written anyway,\n"+
			"the failing cell is reported, and the exit status is 1. Magics work as in the\n"+
			"kernel; reading standard input fails. Ctrl-C interrupts the running cell.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	// Flags may come before, between or after the notebooks.
	var paths []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		paths = append(paths, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(paths) == 0 {
		fs.Usage()
		return fmt.Errorf("%w: no notebook to run", ErrUsage)
	}
	if f.timeout < 0 {
		return fmt.Errorf("%w: --timeout %v is negative", ErrUsage, f.timeout)
	}
	out, err := filepath.Abs(f.out)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}

	// As in the kernel: the garbage collector works harder before a memory
	// limit (or the RAM) is reached rather than after.
	memlimit.SetGoLimit()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	failed := 0
	for _, p := range paths {
		if err := RunNotebook(ctx, p, out, f.timeout, newSession); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%s: interrupted", p)
			}
			fmt.Fprintf(os.Stderr, "pathnotes run: %s: %v\n", p, err)
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d notebooks failed", failed, len(paths))
	}
	return nil
}

// RunNotebook runs one notebook from its own directory in a session that
// newSession starts, and writes it to dir. A failing cell is reported with
// its traceback.
func RunNotebook(ctx context.Context, path, dir string, timeout time.Duration, newSession NewSession) error {
	nb, err := notebook.Read(path)
	if err != nil {
		return err
	}
	dest := filepath.Join(dir, filepath.Base(path))
	if err := checkDest(dest, path); err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := os.Chdir(filepath.Dir(path)); err != nil {
		return err
	}
	defer os.Chdir(wd)
	defer display.SetPublisher(nil)

	start := time.Now()
	runErr := notebook.Run(ctx, nb, newSession, notebook.RunOptions{Timeout: timeout})
	if err := nb.Write(dest); err != nil {
		return errors.Join(runErr, err)
	}
	var fail *notebook.CellFailure
	if errors.As(runErr, &fail) {
		var b strings.Builder
		fmt.Fprintf(&b, "cell %d (execution count %d) failed: %v", fail.Index, fail.Count, fail.Err)
		for _, l := range fail.Err.Traceback[min(1, len(fail.Err.Traceback)):] {
			b.WriteString("\n\t" + l)
		}
		fmt.Fprintf(&b, "\n(written with its outputs so far to %s)", dest)
		return errors.New(b.String())
	}
	if runErr != nil {
		return runErr
	}
	fmt.Fprintf(os.Stderr, "pathnotes run: %s: %s in %v; wrote %s\n", path, notebook.Summary(nb), time.Since(start).Round(time.Millisecond), dest)
	return nil
}

// checkDest refuses to write the run of notebook src to dest when dest is a
// symbolic link to another file: the notebook would replace that file, not
// the link. A link to src itself (a linked notebook run where it lies) is
// written through, which updates the notebook as a run in place should.
func checkDest(dest, src string) error {
	st, err := os.Lstat(dest)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		return nil // no file yet, or a file that the run replaces
	}
	target, _ := os.Readlink(dest)
	if d, err := os.Stat(dest); err == nil {
		if s, err := os.Stat(src); err == nil && os.SameFile(d, s) {
			return nil
		}
	}
	return fmt.Errorf("%s is a symbolic link to %s: refusing to write the notebook through it, which would replace that file; remove the link or choose another --out", dest, target)
}
