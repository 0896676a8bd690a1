// Package cli holds the bodies of the pathnotes commands, one file per
// command (kernel, run, install, info, bench, version). Package main keeps
// the command table and wires the packages together: it gives the kernel
// and run commands the function that starts a cell session, and the info
// command its lines.
package cli

import (
	"errors"

	"github.com/pathnotes/pathnotes/kernel/session"
)

// ErrUsage marks an error caused by bad arguments: the program prints its
// usage with it and exits with status 2.
var ErrUsage = errors.New("usage")

// NewSession starts the interpreter session of a kernel or of a notebook
// run by `pathnotes run`, configured the same way for both; the caller
// closes it.
type NewSession func() (*session.Session, error)
