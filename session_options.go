package main

import "github.com/pathnotes/pathnotes/kernel/session"

// sessionOptions builds the interpreter options that both the kernel and
// `pathnotes run` use, so that a notebook behaves the same in both. The
// standard library is always loaded by the session; the bindings of the
// project's own packages are added here as they appear.
func sessionOptions() session.Options {
	return session.Options{
		Prelude: []string{"fmt"},
	}
}
