package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pathnotes/pathnotes/install"
)

// Install is `pathnotes install`: it writes the Jupyter kernelspec that
// starts this binary's kernel.
func Install(args []string) error {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	user := fs.Bool("user", false, "install for the current user (the default)")
	sysPrefix := fs.Bool("sys-prefix", false, "install into sys.prefix of the Python that runs jupyter")
	prefix := fs.String("prefix", "", "install into `DIR`/share/jupyter/kernels")
	name := fs.String("name", install.DefaultName, "kernelspec `name` (jupyter console --kernel NAME)")
	display := fs.String("display-name", install.DefaultDisplayName, "`name` shown by front ends")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: pathnotes install [--user|--prefix DIR|--sys-prefix] [--name NAME] [--display-name NAME]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", ErrUsage, fs.Args())
	}
	opts := install.Options{Scope: install.User, Name: *name, DisplayName: *display}
	chosen := 0
	if *user {
		chosen++
	}
	if *sysPrefix {
		opts.Scope = install.SysPrefix
		chosen++
	}
	if *prefix != "" {
		opts.Scope, opts.Prefix = install.Prefix, *prefix
		chosen++
	}
	if chosen > 1 {
		return fmt.Errorf("%w: choose one of --user, --sys-prefix and --prefix", ErrUsage)
	}

	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this program's binary: %w", err)
	}
	exe, copied, err := install.PersistentExecutable(exe)
	if err != nil {
		return err
	}
	if copied {
		fmt.Printf("started through go run: copied the binary to %s\n", exe)
	}
	opts.Executable = exe
	dir, err := install.Install(context.Background(), opts)
	if err != nil {
		return err
	}
	fmt.Printf("installed kernelspec %s in %s\n", filepath.Base(dir), dir)
	fmt.Printf("start it with: jupyter console --kernel %s\n", filepath.Base(dir))
	return nil
}
