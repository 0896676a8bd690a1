package session

import (
	"context"
	"fmt"
	"sync"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// Session is one interpreter with its state, kept from cell to cell. Its
// methods may be called from several goroutines; cells run one at a time.
type Session struct {
	opts Options

	mu     sync.Mutex // guards the fields below
	in     *interp.Interpreter
	magics map[magicKey]Magic
	out    Output // output of the running cell, or of the last one that ran
}

// New starts a session with the standard library, opts.Symbols and the
// prelude imported.
func New(opts Options) (*Session, error) {
	if opts.MaxDepth < 0 {
		return nil, fmt.Errorf("session: New: MaxDepth %d is negative", opts.MaxDepth)
	}
	if opts.MaxDepth == 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	s := &Session{opts: opts, magics: map[magicKey]Magic{}}
	if err := s.Reset(); err != nil {
		return nil, err
	}
	return s, nil
}

// Reset drops every variable, function, type and import of the session and
// starts a fresh interpreter with the standard library, the symbols and the
// prelude of the session's options. Registered magics are kept.
func (s *Session) Reset() error {
	in := interp.New(interp.Options{})
	if err := in.Use(stdlib.Symbols); err != nil {
		return fmt.Errorf("session: loading the standard library: %w", err)
	}
	for i, syms := range s.opts.Symbols {
		if err := in.Use(syms); err != nil {
			return fmt.Errorf("session: loading Options.Symbols[%d]: %w", i, err)
		}
	}
	for _, p := range s.opts.Prelude {
		if _, err := in.Eval(fmt.Sprintf("import %q", p)); err != nil {
			return fmt.Errorf("session: importing prelude package %q: %w", p, err)
		}
	}
	s.mu.Lock()
	s.in = in
	s.mu.Unlock()
	return nil
}

// Execute runs one cell. It returns the bundle of the cell's trailing
// expression (nil when the cell ends in a statement or the value is nil), or
// an error that is a *CellError for compile errors, runtime errors, panics
// and interrupts (ctx cancelled).
func (s *Session) Execute(ctx context.Context, code string, out Output) (*Bundle, error) {
	s.mu.Lock()
	in := s.in
	s.out = out
	s.mu.Unlock()
	v, err := in.EvalWithContext(ctx, code)
	if err != nil {
		return nil, &CellError{Name: "Error", Value: err.Error()}
	}
	if !v.IsValid() {
		return nil, nil
	}
	return TextBundle(fmt.Sprintf("%v", v)), nil
}

// Display publishes b to the output of the cell that is running now, or of
// the last cell that ran when none is running (so that goroutines of a
// finished cell can still show things). Before the first cell it is dropped.
func (s *Session) Display(b Bundle, displayID string, update bool) {
	s.mu.Lock()
	out := s.out
	s.mu.Unlock()
	if out != nil {
		out.Display(b, displayID, update)
	}
}

// Complete returns the completions of the identifier before cursor (a
// position in Unicode code points) and the span [start, end) they replace.
func (s *Session) Complete(code string, cursor int) (matches []string, start, end int) {
	return nil, cursor, cursor
}

// Inspect describes the identifier at cursor: its signature and doc comment.
// It reports false when there is nothing to describe.
func (s *Session) Inspect(code string, cursor, detailLevel int) (*Bundle, bool) {
	return nil, false
}

// IsComplete reports whether code is ready to run: "complete", "incomplete"
// (more lines could complete it; indent is a suggestion for the next line)
// or "invalid".
func (s *Session) IsComplete(code string) (status, indent string) {
	return "complete", ""
}
