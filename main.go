// Command pathnotes is a Jupyter kernel for Go built for shortest-path work
// on CPUs and CUDA GPUs, and the tools around it.
//
// Usage:
//
//	pathnotes <command> [arguments]
//
// Run `pathnotes help` for the list of commands.
//
// This file is the composition root: the command table, and the wiring of
// the packages (the session's bindings, presenter, magics and display
// publisher; the sections of `pathnotes info`). The commands' bodies are
// in internal/cli.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/traefik/yaegi/interp"

	"github.com/pathnotes/pathnotes/bindings"
	"github.com/pathnotes/pathnotes/display"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
	"github.com/pathnotes/pathnotes/internal/cli"
	"github.com/pathnotes/pathnotes/internal/magics"
	"github.com/pathnotes/pathnotes/kernel"
	"github.com/pathnotes/pathnotes/kernel/session"
)

// command is one subcommand of pathnotes.
type command struct {
	name    string
	summary string
	run     func(args []string) error
}

// commands lists the subcommands in the order help shows them.
func commands() []command {
	return []command{
		{"kernel", "run the Jupyter kernel on a connection file (Jupyter starts it)",
			func(args []string) error { return cli.Kernel(args, newSession) }},
		{"install", "install the Jupyter kernelspec (--user, --sys-prefix or --prefix DIR)", cli.Install},
		{"run", "run notebooks without Jupyter and write them with their outputs",
			func(args []string) error { return cli.Run(args, newSession) }},
		{"info", "describe this build, the machine and the GPU driver",
			func(args []string) error { return cli.Info(os.Stdout, args, infoSections) }},
		{"bench", "time the GPU variants over sizes and data sets (CUDA events, median of runs)", cli.Bench},
		{"apsp", "all pairs by fw-fast over many GPUs, one process a GPU (a cluster's launcher, or --local-ranks)", cli.APSP},
		{"version", "print the version", cli.VersionCommand},
		{"help", "list the commands", func([]string) error { usage(os.Stdout); return nil }},
	}
}

// infoSections are the lines of `pathnotes info` after the version and the
// CPU, in order: the GPU driver (or why there is none: built without CUDA,
// PATHNOTES_GPU=off) and every device with its limits, then the CUDA
// compilers of %%cuda cells and the PTX cache.
var infoSections = []func() string{gpu.Describe, magics.Compilers}

// newSession starts the interpreter session of a kernel or of a notebook
// run by `pathnotes run`, so that both behave the same: the standard
// library (always loaded by the session), the bindings of the project's
// packages with their doc comments for inspection, the packages a cell may
// use without an import line, rich display of graph values and traces
// through display.Present, the kernel's magics, %gpu, %%cuda and %%ptx with
// the session's own kernels (a cells.Session, whose methods its cells call
// as package cells), and the display package publishing to the session.
// The caller closes it.
func newSession() (*session.Session, error) {
	kernels := new(cells.Session) // the session's own %%cuda and %%ptx modules
	s, err := session.New(session.Options{
		Symbols: []interp.Exports{bindings.Symbols, bindings.Cells(kernels)},
		Prelude: bindings.Prelude,
		Doc:     bindings.Doc,
		Present: func(v any) session.Renderer { return display.Present(v) },
	})
	if err != nil {
		return nil, err
	}
	for _, m := range kernel.Magics() {
		if err := s.RegisterMagic(m); err != nil {
			s.Close()
			return nil, fmt.Errorf("registering %%%s: %w", m.Name, err)
		}
	}
	if err := magics.Register(s, kernels); err != nil {
		s.Close()
		return nil, fmt.Errorf("registering the GPU magics: %w", err)
	}
	display.SetPublisher(func(data, metadata map[string]any, displayID string, update bool) {
		s.Display(session.Bundle{Data: data, Metadata: metadata}, displayID, update)
	})
	return s, nil
}

func main() {
	if len(os.Args) < 2 {
		usage(os.Stderr)
		os.Exit(2)
	}
	name := os.Args[1]
	if name == "-h" || name == "--help" {
		name = "help"
	}
	cmd, ok := lookup(name)
	if !ok {
		fmt.Fprintf(os.Stderr, "pathnotes: unknown command %q\n\n", name)
		usage(os.Stderr)
		os.Exit(2)
	}
	if err := cmd.run(os.Args[2:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, errorLine(name, err))
		if errors.Is(err, cli.ErrUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// errorLine is the line that reports a command's error: "pathnotes NAME:
// ERROR", without saying NAME twice when the error starts with it, as the
// errors of the packages behind the commands do ("install: ...").
func errorLine(name string, err error) string {
	return "pathnotes " + name + ": " + strings.TrimPrefix(err.Error(), name+": ")
}

// lookup finds the command called name.
func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "pathnotes: a Jupyter kernel for Go, for shortest paths on CPUs and GPUs")
	fmt.Fprintln(w, "\nUsage: pathnotes <command> [arguments]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun `pathnotes <command> -h` for a command's flags.")
}
