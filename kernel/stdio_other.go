//go:build !unix

package kernel

import (
	"fmt"
	"os"
	"runtime"
)

// StdioCapture would redirect the process's standard output and error into
// the cells; descriptors cannot be redirected this way on this platform, so
// output of compiled code goes to the kernel's terminal there.
type StdioCapture struct{}

// CaptureStdio reports that the platform cannot redirect descriptors.
func CaptureStdio() (*StdioCapture, error) {
	return nil, fmt.Errorf("capture stdio: not supported on %s", runtime.GOOS)
}

// OriginalStderr returns os.Stderr.
func (c *StdioCapture) OriginalStderr() *os.File { return os.Stderr }

// Close does nothing.
func (c *StdioCapture) Close() error { return nil }

func (c *StdioCapture) setSink(func(name, text string)) {}

func (c *StdioCapture) sync() {}

func (c *StdioCapture) stderrReader() (*os.File, error) {
	return nil, fmt.Errorf("capture stdio: not supported on %s", runtime.GOOS)
}

func (c *StdioCapture) setTee(*os.File) {}
