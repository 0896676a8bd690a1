package session

import (
	"reflect"
	"runtime"

	"github.com/traefik/yaegi/interp"
)

// An interrupt stops interpreted code at its next step, but a call into
// compiled code (cpu.FloydWarshall on context.Background()) cannot be
// stopped: it runs on in the background, and yaegi, once it returns, stores
// its results straight into the variables the call was assigned to, even
// after the next cell has started (the call and the assignment are one step
// of yaegi, and the global frame is live again once the next cell runs).
//
// So the session calls the package-level functions of the bound symbol
// tables (Options.Symbols: pathnotes' packages and gonum) through guards.
// A guard notes the session's interrupt count when the call starts; if an
// interrupt came while the call ran, the goroutine ends (runtime.Goexit)
// when the call returns, before yaegi sees any result. Function arguments
// (callbacks) are guarded the same way: compiled code that calls back into
// the cell after the interrupt ends its goroutine instead of running
// interpreted code.
//
// Calls of methods of compiled types (g.AddArc, m.Mul) are resolved by
// yaegi through reflection on the value and cannot be guarded, and the
// standard library's functions are not (they are many, mostly quick, and
// yaegi recognises fmt's by their value): the assignments of their results
// are split instead (split.go), which covers fewer forms.
//
// Limits: a goroutine of compiled code that calls a guarded callback after
// an interrupt ends there, so compiled code that waits for it waits for
// good (its memory is then kept). An interrupt ends the guarded calls in flight in every
// goroutine of the session, as yaegi's own stop ends all interpreted code
// in flight.
//
// Cost: wrapping the bound tables (pathnotes' packages and gonum, about
// 500 values) takes about 0.2 ms per session start, against about 10 ms
// for the rest of it; a guarded call costs about 0.2 µs more than a plain
// one (2.2 µs against 2.0 µs a call in a cell's loop).

// guardSymbols returns copies of tables whose package-level functions call
// through guard.
//
// Functions named in a table's MapTypes (yaegi's special interface
// wrappers, keyed by the function value) keep their value, which the key
// must match.
func (h *hooks) guardSymbols(tables []interp.Exports) []interp.Exports {
	mapped := map[reflect.Value]bool{}
	for _, t := range tables {
		if mt, ok := t["."]["MapTypes"]; ok && mt.IsValid() {
			if m, ok := mt.Interface().(map[reflect.Value][]reflect.Type); ok {
				for fn := range m {
					mapped[fn] = true
				}
			}
		}
	}
	out := make([]interp.Exports, len(tables))
	for i, t := range tables {
		g := interp.Exports{}
		for pkg, syms := range t {
			m := make(map[string]reflect.Value, len(syms))
			for name, v := range syms {
				if v.IsValid() && v.Kind() == reflect.Func && !v.CanAddr() && !v.IsNil() && !mapped[v] {
					v = h.guard(v)
				}
				m[name] = v
			}
			g[pkg] = m
		}
		out[i] = g
	}
	return out
}

// guard returns a function of fn's type that calls fn, and ends the
// calling goroutine instead of returning when the session was interrupted
// during the call.
func (h *hooks) guard(fn reflect.Value) reflect.Value {
	t := fn.Type()
	var funcArgs []int // arguments of function type, guarded in turn
	for i := 0; i < t.NumIn(); i++ {
		if t.In(i).Kind() == reflect.Func && !(t.IsVariadic() && i == t.NumIn()-1) {
			funcArgs = append(funcArgs, i)
		}
	}
	call := fn.Call
	if t.IsVariadic() {
		call = fn.CallSlice
	}
	return reflect.MakeFunc(t, func(in []reflect.Value) []reflect.Value {
		epoch := h.interrupts.Load()
		for _, i := range funcArgs {
			if !in[i].IsNil() {
				in[i] = h.guardCallback(in[i], epoch)
			}
		}
		out := call(in)
		if h.interrupts.Load() != epoch {
			runtime.Goexit()
		}
		return out
	})
}

// guardCallback returns a function that calls cb unless the session was
// interrupted since epoch, and ends the calling goroutine otherwise.
func (h *hooks) guardCallback(cb reflect.Value, epoch int64) reflect.Value {
	return reflect.MakeFunc(cb.Type(), func(in []reflect.Value) []reflect.Value {
		if h.interrupts.Load() != epoch {
			runtime.Goexit()
		}
		var out []reflect.Value
		if cb.Type().IsVariadic() {
			out = cb.CallSlice(in)
		} else {
			out = cb.Call(in)
		}
		if h.interrupts.Load() != epoch {
			runtime.Goexit()
		}
		return out
	})
}
