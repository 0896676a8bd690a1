package cli

import (
	"flag"
	"fmt"
	"runtime"

	"github.com/pathnotes/pathnotes/lab"
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

// Version names the build (lab.Build: the module version and the VCS
// commit when known), Go and the platform.
func Version() string {
	return fmt.Sprintf("%s (%s, %s/%s)", lab.Build(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
