package session

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"time"

	"github.com/traefik/yaegi/interp"
)

// Cells reach the session's run-time hooks (call depth, cancellation,
// results, goroutine panics) through this package path, imported under
// runtimeName by the code the session generates. The path is this package's
// own so that yaegi finds the interface wrapper of Renderer beside it.
const (
	runtimePath = "github.com/pathnotes/pathnotes/kernel/session"
	runtimeName = "_pnrt"
	// contextName is the name the prelude imports package context under.
	contextName = "_pnctx"
)

// rendererWrapper lets a value of an interpreted type with a MIMEBundle
// method be passed where compiled code expects a Renderer (yaegi's interface
// wrapper convention: the field W<Method> holds the interpreted method).
type rendererWrapper struct {
	IValue      any
	WMIMEBundle func() (data, metadata map[string]any)
}

// MIMEBundle calls the interpreted method.
func (w rendererWrapper) MIMEBundle() (data, metadata map[string]any) { return w.WMIMEBundle() }

// errStale stops what is left of a cell that was interrupted while it was in
// compiled code: yaegi resumes such a cell's top-level statements once the
// next cell starts, and the check between statements ends it.
var errStale = errors.New("session: an interrupted cell tried to go on running")

// depthError is the panic raised when interpreted calls nest deeper than the
// session's MaxDepth: Go's own stack overflow would kill the process.
type depthError struct{ max int }

func (e depthError) Error() string {
	return fmt.Sprintf("stack overflow: more than %d nested calls of interpreted functions "+
		"(runaway recursion?); Options.MaxDepth sets the limit", e.max)
}

// hooks holds the state that generated code reaches through runtimeName.
type hooks struct {
	s     *Session
	depth atomic.Int64 // interpreted calls in progress, all goroutines together
	gen   atomic.Int64 // number of the cell running now, or of the last one
	// interrupts counts the pieces stopped by an interrupt (see guard.go).
	interrupts atomic.Int64
	lastLeft   atomic.Int64 // the site of the frame that returned last (trace.go)
	result     atomic.Pointer[Bundle]
	hasValue   atomic.Bool // the trailing expression was shown (maybe as nil)
}

// symbols returns the symbol table of the hooks package.
func (h *hooks) symbols() interp.Exports {
	return interp.Exports{runtimePath + "/session": {
		"Renderer":  reflect.ValueOf((*Renderer)(nil)),
		"_Renderer": reflect.ValueOf((*rendererWrapper)(nil)),
		"Enter":     reflect.ValueOf(h.enter),
		"Leave":     reflect.ValueOf(h.leave),
		"Check":     reflect.ValueOf(h.check),
		"GoPanic":   reflect.ValueOf(h.goPanic),
		"Render":    reflect.ValueOf(h.renderFor),
		"Stringer":  reflect.ValueOf(h.stringerFor),
		"Error":     reflect.ValueOf(h.errorFor),
		"Show":      reflect.ValueOf(h.showFor),
		"Context":   reflect.ValueOf(h.context),
		"NotePanic": reflect.ValueOf(h.notePanic),
		"NoteType":  reflect.ValueOf(h.noteType),
		"MakeLen":   reflect.ValueOf(h.makeLen),
		"Grow":      reflect.ValueOf(h.grow),
	}}
}

// enter counts one more interpreted call; generated code calls it first in
// every function body. The count is shared by all goroutines, so MaxDepth
// bounds the interpreted frames of the whole session: generous enough for
// deep recursion, far below what would overflow Go's stack.
//
// Beyond MaxDepth, enter stops the running cell the way an interrupt does
// and returns once the interpreter has been told to stop, so that every
// frame returns at its next step. A panic would work too, but unwinding n
// interpreted frames by panics costs time in n squared (seconds at a depth
// of a few thousand). Outside a cell (a goroutine of an earlier cell), it
// panics.
func (h *hooks) enter() {
	if d := h.depth.Add(1); d <= int64(h.s.opts.MaxDepth) {
		return
	}
	err := depthError{h.s.opts.MaxDepth}
	if stopped := h.s.stopCell(err); stopped != nil {
		select {
		case <-stopped:
			// This frame stops before its deferred leave is set up.
			h.depth.Add(-1)
			return
		case <-time.After(time.Second):
		}
	}
	h.depth.Add(-1)
	panic(err)
}

// context returns the context of the piece of cell code that is running,
// cancelled by an interrupt, or a background context between cells (for
// goroutines of earlier cells).
func (h *hooks) context() context.Context {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	if h.s.piece != nil {
		return h.s.piece.ctx
	}
	return context.Background()
}

// leave undoes enter; generated code defers it. site points at the
// frame's site variable, which tells where a panic that unwinds the frame
// was when it left it (trace.go).
func (h *hooks) leave(site *int) {
	h.depth.Add(-1)
	h.lastLeft.Store(int64(*site))
}

// check runs before each top-level statement of cell gen.
func (h *hooks) check(gen int64) {
	if gen != h.gen.Load() {
		panic(errStale)
	}
}

// goPanic reports a panic of a goroutine started by a cell, which generated
// code recovers: an unrecovered one would kill the kernel. site points at
// the site variable of the goroutine's first frame.
func (h *hooks) goPanic(r any, site *int) {
	msg := fmt.Sprintf("panic in a goroutine: %v\n", r)
	bottom := &panicFrame{name: "goroutine", site: *site}
	for _, l := range h.s.traceLines(h.s.takeChain(), bottom) {
		msg += "\t" + l + "\n"
	}
	h.s.writeStderr(msg)
}

// The trailing expression's hooks are called as _pnrt.Show(gen)(e): the
// hook is picked, with the cell's number, before e is evaluated, and drops
// the value when another cell runs by then. A compiled call in e that
// ignored an interrupt and returned later (exec.Cmd.Run) must not become
// the result of the next cell.

func (h *hooks) renderFor(gen int64) func(Renderer) {
	return func(r Renderer) {
		if gen == h.gen.Load() {
			h.render(r)
		}
	}
}

func (h *hooks) stringerFor(gen int64) func(fmt.Stringer) {
	return func(v fmt.Stringer) {
		if gen == h.gen.Load() {
			h.stringer(v)
		}
	}
}

func (h *hooks) errorFor(gen int64) func(error) {
	return func(v error) {
		if gen == h.gen.Load() {
			h.error(v)
		}
	}
}

func (h *hooks) showFor(gen int64) func(...any) {
	return func(vals ...any) {
		if gen == h.gen.Load() {
			h.show(vals...)
		}
	}
}

func (h *hooks) setResult(b *Bundle) {
	h.result.Store(b)
	h.hasValue.Store(true)
}

// render shows a trailing expression that implements Renderer.
func (h *hooks) render(r Renderer) {
	v := any(r)
	if w, ok := r.(rendererWrapper); ok {
		v = w.IValue
	}
	if isNil(v) {
		h.setResult(nil)
		return
	}
	h.setResult(rendererBundle(r, v))
}

// stringer shows a trailing expression of an interpreted type with a String
// method (values of compiled types reach show, where fmt finds the method).
func (h *hooks) stringer(v fmt.Stringer) {
	h.text(v, func() string { return v.String() })
}

// error shows a trailing expression of an interpreted type with an Error
// method.
func (h *hooks) error(v error) {
	h.text(v, func() string { return v.Error() })
}

// text shows the trailing expression v as the text str returns, unless v
// is nil or the session's presenter shows it.
func (h *hooks) text(v any, str func() string) {
	if isNil(v) {
		h.setResult(nil)
		return
	}
	if h.present(v) {
		return
	}
	h.setResult(TextBundle(str()))
}

// show shows the values of a trailing expression. A call that returns
// values and a nil error, r.Path(0, 2) or cpu.FloydWarshall(...), shows
// the values alone, as the cell would show them in a variable.
func (h *hooks) show(vals ...any) {
	if n := len(vals); n >= 2 && vals[n-1] == nil {
		vals = vals[:n-1]
	}
	if len(vals) == 1 && isNil(vals[0]) {
		h.setResult(nil)
		return
	}
	if len(vals) == 1 {
		if r, ok := vals[0].(Renderer); ok {
			h.setResult(rendererBundle(r, vals[0]))
			return
		}
		if h.present(vals[0]) {
			return
		}
	}
	h.setResult(TextBundle(formatValues(vals)))
}

// present shows v through Options.Present when that gives a Renderer.
func (h *hooks) present(v any) bool {
	if h.s.opts.Present == nil {
		return false
	}
	r := h.s.opts.Present(v)
	if r == nil {
		return false
	}
	h.setResult(rendererBundle(r, v))
	return true
}

// rendererBundle asks r for its bundle, adding a text/plain form of v when
// r gives none, as every bundle the kernel publishes must have one.
func rendererBundle(r Renderer, v any) *Bundle {
	data, md := r.MIMEBundle()
	b := &Bundle{Data: map[string]any{}, Metadata: map[string]any{}}
	for k, x := range data {
		b.Data[k] = x
	}
	for k, x := range md {
		b.Metadata[k] = x
	}
	if _, ok := b.Data["text/plain"]; !ok {
		b.Data["text/plain"] = formatValues([]any{v})
	}
	return b
}

// isNil reports whether v is nil or a nil pointer, map, slice, function,
// channel or interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

// noteType records that ptr, a nil *T, points to the cell's type name.
func (h *hooks) noteType(name string, ptr any) {
	t := reflect.TypeOf(ptr)
	if t == nil || t.Kind() != reflect.Pointer {
		return
	}
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	if !slices.Contains(h.s.typeNames[t.Elem()], name) {
		h.s.typeNames[t.Elem()] = append(h.s.typeNames[t.Elem()], name)
	}
}
