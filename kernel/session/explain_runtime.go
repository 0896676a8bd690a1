package session

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"

	"github.com/traefik/yaegi/interp"

	"github.com/pathnotes/pathnotes/internal/memlimit"
)

// translations turn the messages of panics inside the interpreter's
// reflection into those Go would give, keeping the original.
var translations = []struct{ from, to string }{
	{"reflect: slice index out of range", "runtime error: index out of range"},
	{"reflect: array index out of range", "runtime error: index out of range"},
	{"reflect: string index out of range", "runtime error: index out of range"},
	{"reflect: call of reflect.Value.Field on zero Value", "runtime error: invalid memory address or nil pointer dereference"},
	{"reflect: call of reflect.Value.Interface on zero Value", "runtime error: invalid memory address or nil pointer dereference (method call on a nil interface?)"},
	{"reflect: call of reflect.Value.Call on zero Value", "runtime error: invalid memory address or nil pointer dereference (call of a nil function?)"},
	{"reflect: call of reflect.Value.Elem on zero Value", "runtime error: invalid memory address or nil pointer dereference"},
}

// runtimeError turns the error of a failed run (usually a yaegi Panic) into
// a CellError with the interpreted call stack as traceback.
func (s *Session) runtimeError(err error) *CellError {
	chain := s.takeChain()
	trace := s.traceLines(chain, nil)
	e := &CellError{Name: "RuntimeError", Value: err.Error()}
	var p interp.Panic
	if errors.As(err, &p) {
		var de depthError
		var me memoryError
		var le *memlimit.Error
		var re runtime.Error
		value := p.Value
		if rv, ok := value.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
			value = rv.Interface() // yaegi passes some panic values wrapped
		}
		switch v := value.(type) {
		case depthError:
			e.Name, e.Value = "StackOverflow", v.Error()
		case error:
			switch {
			case errors.As(v, &de):
				e.Name, e.Value = "StackOverflow", de.Error()
			case errors.As(v, &me):
				e.Name, e.Value = "MemoryError", me.Error()
			case errors.As(v, &le): // a compiled function's panic of a size check (graph's Dense)
				e.Name, e.Value = "MemoryError", v.Error()
			case errors.As(v, &re):
				e.Name, e.Value = "RuntimeError", v.Error()
			default:
				e.Name, e.Value = "panic", v.Error()
			}
		case string:
			e.Name, e.Value = "panic", v
		default:
			e.Name, e.Value = "panic", fmt.Sprint(describeValue(v))
		}
		if n := s.takePanicNote(value); n != nil {
			e.Name, e.Value = "panic", describeNoted(n, value)
		}
		for _, t := range translations {
			if !strings.HasPrefix(e.Value, t.from) {
				continue
			}
			e.Name, e.Value = "RuntimeError", t.to+" ("+e.Value+")"
			if strings.HasSuffix(t.to, "index out of range") {
				if d := s.indexDetail(chain); d != "" {
					e.Value = t.to + d
				}
			}
		}
	} else {
		e.Value = err.Error() + hint(err.Error())
		if strings.Contains(err.Error(), "nil type") {
			e.Name = "CompileError"
		}
	}
	e.Traceback = append([]string{e.Name + ": " + e.Value}, trace...)
	return e
}

// describeValue formats a panic value of any type as %v does, with its type
// when that helps (panic(3) shows "3 (int)").
func describeValue(v any) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprintf("%v (%s)", v, reflect.TypeOf(v))
}
