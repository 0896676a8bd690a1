package session

import (
	"fmt"
	"go/ast"
	"reflect"
	"sync"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// This file holds every place where the session reaches into yaegi's
// unexported state, to work around gaps of the interpreter. Each relies on
// the layout of yaegi's types at yaegiVersion:
//
//   - frameData reads Interpreter.frame (*frame) and frame.data
//     ([]reflect.Value), the storage of the global frame; releaseSlots
//     replaces values in it, so that dropped temporaries and moved
//     variables can be collected (stmts.go).
//   - growFrame grows frame.data, under frame.mutex (a sync.RWMutex), to
//     the length of Interpreter.universe.types ([]reflect.Type, the
//     frame's layout), as yaegi's own resizeFrame does, but with room to
//     spare.
//   - forgetRoots clears Interpreter.roots (a slice of syntax trees that
//     only yaegi's debugger reads).
//   - markGlobals sets symbol.global on the variables of
//     Interpreter.scopes["main"].sym, a map of *symbol whose kind (sKind,
//     an unsigned integer), global (bool) and index (int) it reads. The
//     kind of a variable (yaegi's varSym) is not hard-coded: it is read at
//     first use from a variable declared in a throwaway interpreter.
//   - forgetImport deletes an import from Interpreter.scopes["main"].sym,
//     so that a name can import a new version of a local package.
//   - resizeFrame and globals work around panics of the exported API
//     (Globals before the frame has grown) and need no layout.
//
// checkYaegi verifies the layout once; when a field has moved, changed kind
// or varSym cannot be found, the patches that need it do nothing (the
// session still runs, keeping more memory and with yaegi's own bugs), and
// TestYaegiPatches fails, naming what moved.

// yaegiVersion is the yaegi release the patches were written for;
// TestYaegiPatches fails when go.mod names another one, so that they are
// reviewed on every upgrade.
const yaegiVersion = "v0.16.1"

// yaegiField is an unexported field a patch relies on.
type yaegiField struct {
	typ, field string // type of package interp, and its field
	kind       reflect.Kind
}

// yaegiFields are the fields the patches read or write.
var yaegiFields = []yaegiField{
	{"Interpreter", "frame", reflect.Pointer},
	{"frame", "data", reflect.Slice},
	{"frame", "mutex", reflect.Struct},
	{"Interpreter", "universe", reflect.Pointer},
	{"scope", "types", reflect.Slice},
	{"Interpreter", "roots", reflect.Slice},
	{"Interpreter", "scopes", reflect.Map},
	{"scope", "sym", reflect.Map},
	{"symbol", "kind", reflect.Uint},
	{"symbol", "global", reflect.Bool},
	{"symbol", "index", reflect.Int},
}

// yaegiState is what checkYaegi finds.
type yaegiState struct {
	err    error            // why the patches are off, nil when they apply
	varSym uint64           // yaegi's symbol kind of a variable
	index  map[string][]int // "type.field" → the index of each field of yaegiFields
}

// field returns the field key ("type.field", of yaegiFields) of v.
func (y yaegiState) field(v reflect.Value, key string) reflect.Value {
	return v.FieldByIndex(y.index[key])
}

// checkYaegi checks the layout the patches rely on, once per process.
var checkYaegi = sync.OnceValue(func() yaegiState {
	index, err := checkFields(yaegiTypes(), yaegiFields)
	if err != nil {
		return yaegiState{err: err}
	}
	y := yaegiState{index: index}
	if y.varSym, err = probeVarSym(y); err != nil {
		return yaegiState{err: err}
	}
	return y
})

// exactFields are the fields whose whole type the patches rely on, not
// only its kind.
var exactFields = map[string]reflect.Type{
	"frame.data":  reflect.TypeFor[[]reflect.Value](),
	"frame.mutex": reflect.TypeFor[sync.RWMutex](),
	"scope.types": reflect.TypeFor[[]reflect.Type](),
}

// checkFields checks that types has each of fields, of its kind (and of
// exactFields' types), and returns their indices by "type.field".
func checkFields(types map[string]reflect.Type, fields []yaegiField) (map[string][]int, error) {
	index := map[string][]int{}
	for _, f := range fields {
		t, ok := types[f.typ]
		if !ok {
			return nil, fmt.Errorf("yaegi patches: type interp.%s not found", f.typ)
		}
		sf, ok := t.FieldByName(f.field)
		if !ok {
			return nil, fmt.Errorf("yaegi patches: interp.%s has no field %s", f.typ, f.field)
		}
		if sf.Type.Kind() != f.kind {
			return nil, fmt.Errorf("yaegi patches: interp.%s.%s is a %s, want a %s", f.typ, f.field, sf.Type.Kind(), f.kind)
		}
		key := f.typ + "." + f.field
		if want, ok := exactFields[key]; ok && sf.Type != want {
			return nil, fmt.Errorf("yaegi patches: interp.%s is a %v, want %v", key, sf.Type, want)
		}
		index[key] = sf.Index
	}
	return index, nil
}

// yaegiTypes returns the named struct types of package interp reachable
// from Interpreter's fields (through pointers, slices and maps), by name.
func yaegiTypes() map[string]reflect.Type {
	root := reflect.TypeFor[interp.Interpreter]()
	out := map[string]reflect.Type{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for {
			switch t.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map, reflect.Chan:
				t = t.Elem()
				continue
			}
			break
		}
		if t.Kind() != reflect.Struct || t.PkgPath() != root.PkgPath() || out[t.Name()] != nil {
			return
		}
		out[t.Name()] = t
		for i := 0; i < t.NumField(); i++ {
			walk(t.Field(i).Type)
		}
	}
	walk(root)
	return out
}

// probeVarSym returns the symbol kind yaegi gives a variable, read from a
// variable declared in a throwaway interpreter.
func probeVarSym(y yaegiState) (uint64, error) {
	in := interp.New(interp.Options{})
	if _, err := in.Eval("var pnProbe int"); err != nil {
		return 0, fmt.Errorf("yaegi patches: declaring a probe variable: %w", err)
	}
	syms := mainSymbols(in, y)
	sym, ok := symbolOf(y, syms.MapIndex(reflect.ValueOf("pnProbe")))
	if !ok {
		return 0, fmt.Errorf("yaegi patches: the probe variable is not in Interpreter.scopes[\"main\"].sym")
	}
	if !sym.global.Bool() || sym.index.Int() < 0 {
		return 0, fmt.Errorf("yaegi patches: the probe variable is not a global with a frame slot")
	}
	return sym.kind.Uint(), nil
}

// yaegiSymbol holds the fields of one of yaegi's symbols.
type yaegiSymbol struct{ kind, global, index reflect.Value }

// mainSymbols returns the map of the symbols of the interpreter's main
// scope (map[string]*symbol), settable; the zero Value when there is none.
func mainSymbols(in *interp.Interpreter, y yaegiState) reflect.Value {
	sc := y.field(reflect.ValueOf(in).Elem(), "Interpreter.scopes").MapIndex(reflect.ValueOf("main"))
	if !sc.IsValid() || sc.IsNil() {
		return reflect.Value{}
	}
	f := y.field(sc.Elem(), "scope.sym")
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// symbolOf returns the fields of sym, a *symbol of mainSymbols' map, and
// false when it is none.
func symbolOf(y yaegiState, sym reflect.Value) (yaegiSymbol, bool) {
	if !sym.IsValid() || sym.Kind() != reflect.Pointer || sym.IsNil() {
		return yaegiSymbol{}, false
	}
	e := sym.Elem()
	return yaegiSymbol{y.field(e, "symbol.kind"), y.field(e, "symbol.global"), y.field(e, "symbol.index")}, true
}

// frameData returns the storage of the interpreter's global frame, where
// yaegi keeps the session's variables and also the temporary values of
// every top-level statement (call results, composite literals), in slots
// that are never reused. It returns nil when checkYaegi fails, and then
// nothing is dropped.
func frameData(in *interp.Interpreter) []reflect.Value {
	y := checkYaegi()
	if y.err != nil {
		return nil
	}
	f := y.field(reflect.ValueOf(in).Elem(), "Interpreter.frame")
	if f.IsNil() {
		return nil
	}
	return *(*[]reflect.Value)(unsafe.Pointer(y.field(f.Elem(), "frame.data").UnsafeAddr()))
}

// growFrame gives the global frame the slots that compilations added to its
// layout, before yaegi's Execute would. yaegi makes a new frame of the
// exact size each time it grows, which it does with nearly every cell: a
// copy of every slot per cell, for a frame that only grows. Here its
// storage doubles when it must grow, and yaegi then finds it large enough.
// It does nothing when checkYaegi fails.
func growFrame(in *interp.Interpreter) {
	y := checkYaegi()
	if y.err != nil {
		return
	}
	iv := reflect.ValueOf(in).Elem()
	f, u := y.field(iv, "Interpreter.frame"), y.field(iv, "Interpreter.universe")
	if f.IsNil() || u.IsNil() {
		return
	}
	layout := *(*[]reflect.Type)(unsafe.Pointer(y.field(u.Elem(), "scope.types").UnsafeAddr()))
	data := (*[]reflect.Value)(unsafe.Pointer(y.field(f.Elem(), "frame.data").UnsafeAddr()))
	mu := (*sync.RWMutex)(unsafe.Pointer(y.field(f.Elem(), "frame.mutex").UnsafeAddr()))
	mu.Lock()
	defer mu.Unlock()
	d := *data
	if len(layout) <= len(d) {
		return
	}
	if cap(d) < len(layout) {
		d = append(make([]reflect.Value, 0, 2*len(layout)), d...)
	}
	for _, t := range layout[len(d):] {
		d = append(d, reflect.New(t).Elem())
	}
	*data = d
}

// releaseSlots replaces the slots of data from index from on whose value
// lives at an address release accepts with fresh zero values. It replaces
// rather than zeroes: a slot may hold a reference into live memory (yaegi
// keeps the element of xs[i] = v as a value addressing the array), which
// zeroing would write through.
func releaseSlots(data []reflect.Value, from int, release func(addr uintptr) bool) {
	for i := from; i < len(data); i++ {
		if v := data[i]; v.IsValid() && v.CanAddr() && release(v.UnsafeAddr()) {
			data[i] = reflect.New(v.Type()).Elem()
		}
	}
}

// forgetRoots empties yaegi's list of the syntax trees of everything it
// compiled, which only its debugger reads: kept, it holds every cell's
// tree (tens of kilobytes a cell) for the life of the session. It does
// nothing when checkYaegi fails.
func forgetRoots(in *interp.Interpreter) {
	y := checkYaegi()
	if y.err != nil {
		return
	}
	f := y.field(reflect.ValueOf(in).Elem(), "Interpreter.roots")
	f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	f.Set(reflect.Zero(f.Type()))
}

// markGlobals marks as global every variable of the session's top-level
// scope. yaegi 0.16 forgets the mark on variables that top-level code
// defines with a multi-value := or var (u, err := f()), so functions that
// read them reach them through the caller's frame instead of the global
// one: right when called from the top level, wrong (a zero value, or
// another variable's) when called from a function or closure. Functions
// compiled after the mark read the right slot. It does nothing when
// checkYaegi fails.
func markGlobals(in *interp.Interpreter) {
	y := checkYaegi()
	if y.err != nil {
		return
	}
	syms := mainSymbols(in, y)
	if !syms.IsValid() {
		return
	}
	for iter := syms.MapRange(); iter.Next(); {
		sym, ok := symbolOf(y, iter.Value())
		if !ok || sym.kind.Uint() != y.varSym || sym.global.Bool() || sym.index.Int() < 0 {
			continue
		}
		reflect.NewAt(sym.global.Type(), unsafe.Pointer(sym.global.UnsafeAddr())).Elem().SetBool(true)
	}
}

// resizeFrame runs an empty program after a failed compilation: yaegi may
// have added variables to its global scope without growing the storage of
// their values, and reading them (Globals) would panic until something runs.
func (s *Session) resizeFrame() {
	defer func() { recover() }() // best effort: only the next cell would fix it
	if prog, err := s.in.CompileAST(&ast.BlockStmt{}); err == nil {
		s.in.Execute(prog)
	}
}

// globals returns the session's variables and constants.
func (s *Session) globals() (g map[string]reflect.Value) {
	defer func() {
		if r := recover(); r != nil {
			g = map[string]reflect.Value{}
		}
	}()
	return s.in.Globals()
}

// forgetImport removes the import named key ("name/cell") from the
// interpreter's main scope, so that the name can import another package
// (a new version of a local package), and returns a function that puts it
// back. It does nothing when checkYaegi fails: the import of the new
// version then fails as a redeclaration.
func forgetImport(in *interp.Interpreter, key string) (restore func()) {
	restore = func() {}
	y := checkYaegi()
	if y.err != nil {
		return restore
	}
	syms := mainSymbols(in, y)
	if !syms.IsValid() {
		return restore
	}
	k := reflect.ValueOf(key)
	old := syms.MapIndex(k)
	if !old.IsValid() {
		return restore
	}
	syms.SetMapIndex(k, reflect.Value{})
	return func() { syms.SetMapIndex(k, old) }
}
