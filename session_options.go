package main

import (
	"github.com/traefik/yaegi/interp"

	"github.com/pathnotes/pathnotes/bindings"
	"github.com/pathnotes/pathnotes/kernel/session"
)

// sessionOptions builds the interpreter options that both the kernel and
// `pathnotes run` use, so that a notebook behaves the same in both: the
// standard library (always loaded by the session), the bindings of the
// project's packages with their doc comments for inspection, and fmt
// without an import line.
func sessionOptions() session.Options {
	return session.Options{
		Symbols: []interp.Exports{bindings.Symbols},
		Prelude: []string{"fmt"},
		Doc:     bindings.Doc,
	}
}
