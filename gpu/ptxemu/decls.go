package ptxemu

// Decls are the module-scope declarations of PTX text: its kernels'
// signatures and its .global and .const variables. Package gpu checks a
// cell's launch arguments and gives its variables element types with them,
// on every driver.
type Decls struct {
	Entries []Entry
	Vars    []Var
}

// Entry is a kernel's signature.
type Entry struct {
	Name   string
	Params []Param
}

// Var is a module-scope .global or .const variable with storage (an
// .extern declaration has none, and is left out).
type Var struct {
	Name  string
	Space string // "global" or "const"
	Type  string // element type without the dot, e.g. "f32"
	Count int    // elements; 1 for a scalar, 0 for an unsized array
}

// ParseDecls reads the declarations of PTX text with the emulator's
// parser, skipping the function bodies, so that the PTX of a real card's
// JIT compiler is read even where it holds instructions the interpreter
// does not run. name is the module's name for error messages.
func ParseDecls(name, text string) (Decls, error) {
	m, err := parseModule(name, text, true)
	if err != nil {
		return Decls{}, err
	}
	var d Decls
	for _, f := range m.funcs {
		if f.entry {
			params, _ := paramLayout(f.params)
			d.Entries = append(d.Entries, Entry{Name: f.name, Params: params})
		}
	}
	for _, v := range m.vars {
		if !v.extern && (v.space == "global" || v.space == "const") {
			d.Vars = append(d.Vars, Var{Name: v.name, Space: v.space, Type: v.typ.String(), Count: v.count})
		}
	}
	return d, nil
}

// paramLayout places a kernel's parameters in its parameter buffer, each
// at its alignment, and returns them with the buffer's size.
func paramLayout(decls []paramDecl) ([]Param, int) {
	params := make([]Param, 0, len(decls))
	off := 0
	for _, p := range decls {
		size := int(p.typ.size) * p.count
		off = int(roundUp(uint64(off), uint64(max(p.align, 1))))
		params = append(params, Param{Name: p.name, Type: p.typ.String(), Size: size, Offset: off})
		off += size
	}
	return params, off
}
