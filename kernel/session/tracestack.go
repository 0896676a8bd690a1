package session

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
)

// This file turns what a panic leaves behind into the traceback of a cell
// error: the lines yaegi writes for each frame it unwinds, paired with the
// sites that the frames' Leave calls hand over (trace.go), and the compiled
// functions that the Go stack shows above the interpreted ones.

// executionCountKey is the context key of WithExecutionCount.
type executionCountKey struct{}

// WithExecutionCount returns a context that tells Session.Execute the
// execution count of the cell it runs (the n of In[n]), which runtime
// errors name. Without it, a session numbers the cells it runs 1, 2, 3, ...
func WithExecutionCount(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, executionCountKey{}, n)
}

// startCell records the cell that starts running: its number and text.
func (s *Session) startCell(ctx context.Context, code string) {
	n, ok := ctx.Value(executionCountKey{}).(int)
	if !ok {
		n = int(s.hooks.gen.Load())
	}
	s.mu.Lock()
	s.cell = &cellSource{number: n, code: code}
	s.chain = nil
	s.mu.Unlock()
}

// endCell forgets the running cell.
func (s *Session) endCell() {
	s.mu.Lock()
	s.cell = nil
	s.mu.Unlock()
}

// clearTopSite forgets the site of the top-level code, before a piece runs.
func (s *Session) clearTopSite() {
	if v := s.topSite; v.IsValid() && v.CanSet() {
		v.SetInt(0)
	}
}

// findTopSite finds the global site variable the prelude declares.
func (s *Session) findTopSite() {
	s.topSite = reflect.Value{}
	if v, ok := s.globals()[lineVar]; ok && v.Kind() == reflect.Int && v.CanSet() {
		s.topSite = v
	}
}

// panicFrame is one interpreted frame that a panic unwound.
type panicFrame struct {
	name     string          // as yaegi writes it: "main.fact", "main"
	pos      string          // yaegi's position for it ("kit/p.go:5:6"), shown when no site is known
	site     int             // the frame's site, 0 when unknown
	compiled []compiledFrame // compiled functions it called, innermost first
}

// compiledFrame is a function of compiled code (a bound package, the
// standard library) on the way to a panic.
type compiledFrame struct {
	fn, file string
	line     int
}

// panicChain is what the session knows of the latest panic.
type panicChain struct {
	frames   []panicFrame // innermost first
	dropped  int          // frames left out in the middle
	segments [][]compiledFrame
}

// notePanicLine records the frame of a line yaegi writes as a panic
// unwinds it ("cell:1:21: panic: main.fact(...)"). The frame's Leave has
// just handed over its site. A line written for a panic that has just
// started (rather than one unwinding from an inner frame) starts a new
// chain, with the compiled frames of the Go stack below it.
func (s *Session) notePanicLine(name, pos string) {
	fresh := panicStarts()
	var segments [][]compiledFrame
	if fresh {
		segments = compiledSegments()
	}
	site := int(s.hooks.lastLeft.Swap(0))
	s.mu.Lock()
	defer s.mu.Unlock()
	if fresh || s.chain == nil {
		s.chain = &panicChain{segments: segments}
	}
	ch := s.chain
	f := panicFrame{name: name, pos: pos}
	if site > 0 && site < len(s.sites) && s.sites[site].yaegiName == name {
		f.site = site
	}
	if name == "main" && s.topSite.IsValid() {
		f.site = int(s.topSite.Int())
	}
	if i := len(ch.frames) + ch.dropped; i < len(ch.segments) {
		f.compiled = ch.segments[i]
	}
	if len(ch.frames) >= maxTrace {
		ch.frames[len(ch.frames)-1] = f // keep the outermost
		ch.dropped++
		return
	}
	ch.frames = append(ch.frames, f)
}

const yaegiInterp = "github.com/traefik/yaegi/interp."

// panicStarts reports whether the caller, writing yaegi's line for a frame,
// handles a panic that starts in that frame, rather than one that an inner
// frame's recover passed on (runCfg's deferred function panics again).
func panicStarts() bool {
	var pcs [24]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	afterPanic := false
	for {
		f, more := frames.Next()
		if afterPanic {
			return f.Function != yaegiInterp+"runCfg.func1"
		}
		afterPanic = f.Function == "runtime.gopanic"
		if !more {
			return true
		}
	}
}

// compiledSegments returns, for each interpreted frame below the panic
// (innermost first), the compiled functions above it on the Go stack.
func compiledSegments() [][]compiledFrame {
	pcs := make([]uintptr, 512)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var segments [][]compiledFrame
	var cur []compiledFrame
	afterPanic := false
	for {
		f, more := frames.Next()
		switch {
		case !afterPanic:
			afterPanic = f.Function == "runtime.gopanic"
		case f.Function == yaegiInterp+"runCfg":
			segments = append(segments, cur)
			cur = nil
		case isCompiledUserFrame(f.Function):
			cur = append(cur, compiledFrame{fn: shortFuncName(f.Function), file: filepath.Base(f.File), line: f.Line})
		}
		if !more {
			return segments
		}
	}
}

// isCompiledUserFrame reports whether a function of the Go stack is one a
// cell called (a bound package, the standard library) rather than the
// machinery of the runtime, reflection, the interpreter or the session.
func isCompiledUserFrame(fn string) bool {
	for _, p := range []string{"runtime.", "reflect.", "github.com/traefik/yaegi/", runtimePath + ".(*hooks)", runtimePath + ".(*Session)", "sync.", "internal/"} {
		if strings.HasPrefix(fn, p) {
			return false
		}
	}
	return fn != ""
}

// shortFuncName drops the directories of a function's import path:
// "github.com/pathnotes/pathnotes/cpu.FloydWarshall" → "cpu.FloydWarshall".
func shortFuncName(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		return fn[i+1:]
	}
	return fn
}

// takeChain returns and forgets the latest panic's chain.
func (s *Session) takeChain() *panicChain {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.chain
	s.chain = nil
	return ch
}

// takeTrace returns and forgets the traceback lines of the latest panic:
// the failing line of the cell, then the call chain.
func (s *Session) takeTrace() []string {
	return s.traceLines(s.takeChain(), nil)
}

// shownFrame is a line of the call chain.
type shownFrame struct {
	fn        string
	cell      *cellSource // nil for compiled code and unknown positions
	pos       string      // yaegi's file position of a frame outside the cells, or ""
	line, col int
	compiled  *compiledFrame
}

// traceLines formats a chain, with bottom (a goroutine's first frame, not
// in the chain) below it when not nil.
func (s *Session) traceLines(ch *panicChain, bottom *panicFrame) []string {
	var frames []panicFrame
	dropped := 0
	if ch != nil {
		frames, dropped = ch.frames, ch.dropped
	}
	if bottom != nil {
		frames = append(frames[:len(frames):len(frames)], *bottom)
	}
	var shown []shownFrame // innermost first
	skipCaller := false
	s.mu.Lock()
	for _, f := range frames {
		for i := range f.compiled {
			shown = append(shown, shownFrame{fn: f.compiled[i].fn, compiled: &f.compiled[i]})
		}
		if isGenerated(f.name) {
			continue
		}
		if skipCaller {
			// The caller of a literal the session wrapped around top-level
			// code: the literal's frame showed the line.
			skipCaller = false
			continue
		}
		if f.site > 0 && f.site < len(s.sites) {
			st := s.sites[f.site]
			shown = append(shown, shownFrame{fn: st.fn, cell: st.cell, line: st.line, col: st.col})
			skipCaller = st.wrapper
			continue
		}
		if f.name == "main" && len(shown) > 0 {
			continue // top-level code the session generated (the call of a pasted main)
		}
		sf := shownFrame{fn: localFuncName(strings.TrimPrefix(strings.ReplaceAll(f.name, "._pnmain", ".main"), "main."))}
		if !strings.HasPrefix(f.pos, "cell:") {
			sf.pos = f.pos // a local package's file: yaegi's position names it
		}
		shown = append(shown, sf)
	}
	s.mu.Unlock()
	if len(shown) == 0 {
		return nil
	}
	var out []string
	for _, f := range shown {
		if f.cell != nil {
			out = append(out, sourceLines(f)...)
			break
		}
	}
	n := len(shown)
	for i := n - 1; i >= 0; i-- {
		if n > 20 && i == n-11 {
			out = append(out, fmt.Sprintf("  ... %d more frames ...", n-20+dropped))
			i = 9
		}
		out = append(out, "  "+shown[i].String())
	}
	return out
}

// String formats the frame as a line of the call chain.
func (f shownFrame) String() string {
	switch {
	case f.compiled != nil:
		return fmt.Sprintf("in %s (compiled code, %s:%d)", f.fn, f.compiled.file, f.compiled.line)
	case f.cell != nil:
		return fmt.Sprintf("in %s (Cell In[%d], line %d)", f.fn, f.cell.number, f.line)
	case f.pos != "":
		return fmt.Sprintf("in %s (%s)", f.fn, f.pos)
	}
	return fmt.Sprintf("in %s", f.fn)
}

// sourceLines shows the cell line of f with a caret under its column:
//
//	Cell In[3], line 5, column 5:
//	    5 |     m["x"] = 1
//	      |     ^
func sourceLines(f shownFrame) []string {
	head := fmt.Sprintf("Cell In[%d], line %d, column %d:", f.cell.number, f.line, f.col)
	lines := strings.Split(f.cell.code, "\n")
	if f.line < 1 || f.line > len(lines) {
		return []string{head}
	}
	text := strings.TrimRight(lines[f.line-1], " \t\r")
	num := fmt.Sprint(f.line)
	var pad strings.Builder
	for i, r := range text {
		if i >= f.col-1 {
			break
		}
		if r == '\t' {
			pad.WriteByte('\t')
		} else {
			pad.WriteByte(' ')
		}
	}
	return []string{
		head,
		fmt.Sprintf("    %s | %s", num, text),
		fmt.Sprintf("    %s | %s^", strings.Repeat(" ", len(num)), pad.String()),
	}
}

// localFuncName names a function of a local package by the package's name,
// as the cell does, instead of the import path the session gives the
// package's version in the interpreter: "local/kit@4.Boom" is "kit.Boom"
// (see localPkgs.add).
func localFuncName(name string) string {
	rest, ok := strings.CutPrefix(name, localPrefix+"/")
	if !ok {
		return name
	}
	pkg, fn, ok := strings.Cut(rest, ".")
	if !ok {
		return name
	}
	pkg, _, _ = strings.Cut(pkg, "@")
	if pkg == localPrefix+"_" {
		pkg = localPrefix
	}
	return pkg + "." + fn
}
