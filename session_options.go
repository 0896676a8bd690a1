package main

import (
	"fmt"
	"image"

	"github.com/traefik/yaegi/interp"

	"github.com/pathnotes/pathnotes/bindings"
	"github.com/pathnotes/pathnotes/display"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/kernel"
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

// newSession starts the interpreter session of a kernel or of a notebook run
// by `pathnotes run`, so that both behave the same: the options above, the
// kernel's magics, %gpu, and the display package publishing to the session.
// The caller closes the session.
func newSession() (*session.Session, error) {
	s, err := session.New(sessionOptions())
	if err != nil {
		return nil, err
	}
	for _, m := range kernel.Magics() {
		if err := s.RegisterMagic(m); err != nil {
			s.Close()
			return nil, fmt.Errorf("registering %%%s: %w", m.Name, err)
		}
	}
	if err := registerGPUMagics(s); err != nil {
		s.Close()
		return nil, fmt.Errorf("registering %%gpu: %w", err)
	}
	display.SetPublisher(func(data, metadata map[string]any, displayID string, update bool) {
		s.Display(session.Bundle{Data: data, Metadata: metadata}, displayID, update)
	})
	return s, nil
}
