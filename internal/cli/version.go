package cli

import (
	"flag"
	"fmt"
	"runtime"

	"github.com/pathnotes/pathnotes/display"
)

// VersionCommand is `pathnotes version`: it prints Version.
func VersionCommand(args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", ErrUsage, fs.Args())
	}
	fmt.Println(Version())
	return nil
}

// Version names the build (display.Build: the module version and the VCS
// commit when known), Go and the platform.
func Version() string {
	return fmt.Sprintf("%s (%s, %s/%s)", display.Build(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
