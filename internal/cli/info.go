package cli

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"
)

// Info is `pathnotes info`: the version, the CPU, then each of sections in
// order (the GPU driver and devices, the CUDA compilers: main chooses them).
func Info(w io.Writer, args []string, sections []func() string) error {
	fs := flag.NewFlagSet("info", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", ErrUsage, fs.Args())
	}
	fmt.Fprintln(w, Version())
	fmt.Fprintf(w, "cpu: %d logical cores (GOMAXPROCS %d)\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	for _, f := range sections {
		fmt.Fprintln(w, strings.TrimRight(f(), "\n"))
	}
	return nil
}
