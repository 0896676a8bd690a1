package main

import (
	"image"

	"github.com/traefik/yaegi/interp"

	"github.com/pathnotes/pathnotes/bindings"
	"github.com/pathnotes/pathnotes/display"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/kernel/session"
)

// sessionOptions builds the interpreter options that both the kernel and
// `pathnotes run` use, so that a notebook behaves the same in both: the
// standard library (always loaded by the session), the bindings of the
// project's packages with their doc comments for inspection, the packages a
// cell may use without an import line, and rich display of graph values.
func sessionOptions() session.Options {
	return session.Options{
		Symbols: []interp.Exports{bindings.Symbols},
		Prelude: bindings.Prelude,
		Doc:     bindings.Doc,
		Present: present,
	}
}

// present shows the values of our packages that have no MIMEBundle method of
// their own through the display package; everything else keeps the
// session's text form.
func present(v any) session.Renderer {
	switch x := v.(type) {
	case *graph.Graph, *graph.AllPairs, *graph.SingleSource, image.Image:
		return display.Of(v)
	case *graph.FWTrace:
		return display.FWTrace(x)
	case *graph.DijkstraTrace:
		return display.DijkstraTrace(x)
	}
	return nil
}
