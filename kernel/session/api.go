package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// Bundle is a MIME bundle: Data maps a MIME type to its content
// ("text/plain" is always present in bundles this package builds).
type Bundle struct {
	Data     map[string]any
	Metadata map[string]any
}

// TextBundle returns a bundle holding only text/plain.
func TextBundle(text string) *Bundle {
	return &Bundle{Data: map[string]any{"text/plain": text}, Metadata: map[string]any{}}
}

// Renderer is implemented by values that render themselves as a MIME bundle.
// The display package implements it; the kernel relies on the method set
// only (structural typing), so neither package imports the other.
type Renderer interface {
	MIMEBundle() (data, metadata map[string]any)
}

// Output receives what a running cell produces, in order.
//
// Output of goroutines that outlive their cell goes to the Output of the most
// recent cell (the one running now, or the last one that ran), so an Output
// must stay usable after Execute returns.
type Output interface {
	// Stream sends text written to "stdout" or "stderr".
	Stream(name, text string)
	// Display publishes a bundle (display_data), or replaces the bundle shown
	// under displayID when update is true (update_display_data).
	Display(b Bundle, displayID string, update bool)
	// ClearOutput clears the cell's output, once new output arrives if wait.
	ClearOutput(wait bool)
	// Input asks the user for one line; it returns an error when the front
	// end does not allow stdin.
	Input(prompt string, password bool) (string, error)
}

// Options configure a Session.
type Options struct {
	// Symbols are extra symbol tables (bindings of our packages), loaded
	// besides the standard library's.
	Symbols []interp.Exports
	// Prelude lists import paths that every cell may use without an import
	// line, for example "fmt".
	Prelude []string
	// MaxDepth is the call depth of interpreted functions beyond which a
	// call fails with a clean error instead of overflowing the Go stack
	// (0 means DefaultMaxDepth).
	MaxDepth int
	// Doc, when set, returns the declaration and doc comment of an exported
	// name of a bound package ("Name", or "Type.Method"), for inspection:
	// the doc comments of compiled packages are not in the binary. The
	// standard library's come from the Go sources in GOROOT when present.
	Doc func(importPath, name string) (string, bool)
	// Present, when set, may return a Renderer for a trailing value whose
	// type has no MIMEBundle method of its own (the program points it at
	// the display package, so that graphs and results show richly while
	// the session stays ignorant of them). A nil Renderer keeps the text
	// form.
	Present func(v any) Renderer
}

// DefaultMaxDepth is the call depth used when Options.MaxDepth is 0. An
// interpreted call takes a few kilobytes of Go stack in yaegi (Go's 1 GB
// stack overflows, fatally, between 300,000 and 1,000,000 calls of a
// one-argument function), so this leaves a wide margin for functions with
// more arguments and for calls through compiled code.
const DefaultMaxDepth = 20000

// CellError describes a cell that failed: a compile error, a runtime error,
// a panic or an interrupt. Its fields are the ename, evalue and traceback of
// Jupyter's error reply.
type CellError struct {
	Name      string   // kind of error, e.g. "CompileError", "panic", "Interrupted"
	Value     string   // the message, with positions as cell line:column
	Traceback []string // lines to show the user, most relevant first
}

// Error returns "Name: Value".
func (e *CellError) Error() string {
	if e.Value == "" {
		return e.Name
	}
	return e.Name + ": " + e.Value
}

// Magic is a command that starts with % (line magic) or %% (cell magic,
// Cell true: it receives the rest of the cell as body).
type Magic struct {
	Name  string // without the % signs
	Cell  bool   // a cell magic (%%name) rather than a line magic (%name)
	Usage string // one line, e.g. "%env [VAR[=value]]"
	Help  string // what it does, shown by %help
	// Run executes the magic. args is the rest of the magic's line; body the
	// rest of the cell (empty for line magics).
	Run func(ctx context.Context, s *Session, args, body string, out Output) (*Bundle, error)
}

// RegisterMagic adds m to the session's magics, replacing none: a name that
// is already registered (for the same kind, line or cell) is an error.
func (s *Session) RegisterMagic(m Magic) error {
	if m.Name == "" || strings.ContainsAny(m.Name, " \t\n%") {
		return fmt.Errorf("session: RegisterMagic: invalid magic name %q", m.Name)
	}
	if m.Run == nil {
		return fmt.Errorf("session: RegisterMagic: magic %q has no Run function", m.Name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := magicKey{m.Name, m.Cell}
	if _, ok := s.magics[k]; ok {
		return fmt.Errorf("session: RegisterMagic: magic %s is already registered", k)
	}
	s.magics[k] = m
	return nil
}

type magicKey struct {
	name string
	cell bool
}

func (k magicKey) String() string {
	if k.cell {
		return "%%" + k.name
	}
	return "%" + k.name
}
