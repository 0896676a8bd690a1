// Command pathnotes is a Jupyter kernel for Go built for shortest-path work
// on CPUs and CUDA GPUs, and the tools around it.
//
// Usage:
//
//	pathnotes <command> [arguments]
//
// Run `pathnotes help` for the list of commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
)

// command is one subcommand of pathnotes.
type command struct {
	summary string
	run     func(args []string) error
}

// commands holds every subcommand; files of package main register theirs in init.
var commands = map[string]command{}

func init() {
	commands["version"] = command{"print the version", func([]string) error {
		fmt.Println(versionString())
		return nil
	}}
	commands["info"] = command{"describe this build, the machine and the GPU driver", runInfo}
	commands["help"] = command{"list the commands", func([]string) error { usage(os.Stdout); return nil }}
}

// errUsage marks an error caused by bad arguments: main prints usage with it.
var errUsage = errors.New("usage")

func main() {
	if len(os.Args) < 2 {
		usage(os.Stderr)
		os.Exit(2)
	}
	name := os.Args[1]
	if name == "-h" || name == "--help" {
		name = "help"
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "pathnotes: unknown command %q\n\n", name)
		usage(os.Stderr)
		os.Exit(2)
	}
	if err := cmd.run(os.Args[2:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintf(os.Stderr, "pathnotes %s: %v\n", name, err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "pathnotes: a Jupyter kernel for Go, for shortest paths on CPUs and GPUs")
	fmt.Fprintln(w, "\nUsage: pathnotes <command> [arguments]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun `pathnotes <command> -h` for a command's flags.")
}

// versionString names the module version (from the build info) and Go.
func versionString() string {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " " + s.Value[:12]
			}
		}
	}
	return fmt.Sprintf("pathnotes %s (%s, %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// infoLines are extra lines of `pathnotes info`, added by other files of the
// command (the GPU driver, for example) in their init functions.
var infoLines []func() string

func runInfo(args []string) error {
	fs := flag.NewFlagSet("info", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	fmt.Println(versionString())
	fmt.Printf("cpu: %d logical cores (GOMAXPROCS %d)\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	for _, f := range infoLines {
		fmt.Println(strings.TrimRight(f(), "\n"))
	}
	return nil
}
