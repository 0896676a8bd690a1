package session

import (
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/traefik/yaegi/interp"
)

// runtime.Goexit called by a cell ends the goroutine that runs the cell's
// code, after its deferred calls: yaegi's Execute then returns no error, as
// if the cell had ended, and the rest of the cell would be skipped in
// silence. So the cells' runtime.Goexit counts the calls made on that
// goroutine before it ends it, and a piece of a cell during which the count
// moved fails with a Goexit error. Goexit on a goroutine the cell started
// ends that goroutine only, as in Go, and is not counted.
//
// The session's own Goexit, which ends a guarded call that returns after an
// interrupt (guard.go), calls runtime.Goexit directly: such a piece is
// reported as interrupted. Compiled code that calls runtime.Goexit itself
// (testing.T.FailNow) is not seen either; its cell ends with no error.

// pieceGoroutine is the name prefix of the function that yaegi's
// ExecuteWithContext runs a program on: a goroutine whose stack holds it
// runs a piece of a cell, not a goroutine the cell started.
var pieceGoroutine = runtime.FuncForPC(reflect.ValueOf((*interp.Interpreter).ExecuteWithContext).Pointer()).Name() + ".func"

// goexitCount counts the cells' runtime.Goexit calls made on the goroutine
// of a piece.
type goexitCount struct{ atomic.Int64 }

// goexitSymbols returns the symbol table that replaces the cells'
// runtime.Goexit.
func (s *Session) goexitSymbols() interp.Exports {
	return interp.Exports{"runtime/runtime": {"Goexit": reflect.ValueOf(s.cellGoexit)}}
}

// cellGoexit is runtime.Goexit for the cells: it counts a call made on the
// goroutine of a piece in s.goexits, then ends the goroutine.
func (s *Session) cellGoexit() {
	if onPieceGoroutine() {
		s.goexits.Add(1)
	}
	runtime.Goexit()
}

// onPieceGoroutine reports whether the calling goroutine runs a piece of a
// cell.
func onPieceGoroutine() bool {
	pc := make([]uintptr, 256)
	for {
		n := runtime.Callers(2, pc)
		if n < len(pc) {
			pc = pc[:n]
			break
		}
		pc = make([]uintptr, 2*len(pc))
	}
	frames := runtime.CallersFrames(pc)
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, pieceGoroutine) {
			return true
		}
		if !more {
			return false
		}
	}
}

// goexitError is the error of a piece that runtime.Goexit ended.
func goexitError() *CellError {
	const msg = "runtime.Goexit ended the goroutine that runs the cell; the rest of the cell did not run"
	return &CellError{Name: "Goexit", Value: msg, Traceback: []string{"Goexit: " + msg}}
}
