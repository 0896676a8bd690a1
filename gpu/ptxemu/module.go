package ptxemu

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Module is a loaded PTX module: its kernels, decoded, and its variables.
type Module struct {
	name      string
	dev       *Device
	kernels   map[string]*Kernel
	globals   map[string]allocation // .global variables, in device memory
	constBank []byte                // .const variables, as the kernels read them
	constOff  map[string]int
	constSize map[string]int
	// constAddr is the global allocation that backs the constant bank, so
	// that the host writes it as cudaMemcpyToSymbol does; each launch
	// copies it into constBank first (0 when the module has no .const).
	constAddr uint64
	vars      []*varDecl     // module-scope .shared and .local variables
	files     map[int]string // .file: source files by number, for .loc
}

// Kernel is a decoded .entry of a Module, ready to launch.
type Kernel struct {
	name       string
	mod        *Module
	dev        *Device
	code       []inst
	src        []srcPos // per instruction, where .loc gives it; nil without .loc
	nregs      int      // register slots: declared, constants, special registers
	npreds     int
	consts     []constReg
	specials   []specialReg
	params     []Param
	paramBytes int
	// Shared memory: static variables first, then the dynamic (extern)
	// array at dynOffset, which is also the static size.
	dynOffset  int
	localBytes int // per thread
	maxntid    []int
	reqntid    []int

	profCode []inst // code with counting wrappers (profile.go), built at the first profiled launch

	poolMu   sync.Mutex
	pool     []*blockState
	launches atomic.Int64
}

// Param describes a kernel parameter.
type Param struct {
	Name   string
	Type   string // PTX type without the dot: "u32", "f64"; "b8" for an aggregate
	Size   int    // bytes
	Offset int    // in the parameter buffer
}

// constReg is a register slot holding an immediate operand.
type constReg struct {
	reg int32
	val uint64
}

// specialReg is a register slot holding a special register such as %tid.x.
type specialReg struct {
	reg  int32
	kind specialKind
}

// Name returns the kernel's name.
func (k *Kernel) Name() string { return k.name }

// Params describes the kernel's parameters in order.
func (k *Kernel) Params() []Param { return append([]Param(nil), k.params...) }

// Launches returns how many launches of the kernel have run.
func (k *Kernel) Launches() int { return int(k.launches.Load()) }

// Instructions returns the number of decoded instructions.
func (k *Kernel) Instructions() int { return len(k.code) }

// Name returns the module's name.
func (m *Module) Name() string { return m.name }

// Kernels returns the names of the module's kernels, sorted.
func (m *Module) Kernels() []string {
	names := make([]string, 0, len(m.kernels))
	for n := range m.kernels {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Kernel returns the kernel called name.
func (m *Module) Kernel(name string) (*Kernel, error) {
	if k, ok := m.kernels[name]; ok {
		return k, nil
	}
	return nil, fmt.Errorf("ptx module %s has no kernel %q (kernels: %s)", m.name, name, strings.Join(m.Kernels(), ", "))
}

// Global returns the device address and size of the module's .global or
// .const variable name, as cuModuleGetGlobal does, so that the host can
// read or write it (Device.Read, Device.Write). A .const variable lives in
// a global allocation that every launch of the module's kernels copies
// into the constant bank first, so a host write shows in the next launch.
func (m *Module) Global(name string) (addr, size uint64, err error) {
	if a, ok := m.globals[name]; ok {
		return a.addr, a.size, nil
	}
	if off, ok := m.constOff[name]; ok {
		return m.constAddr + uint64(off), uint64(m.constSize[name]), nil
	}
	return 0, 0, fmt.Errorf("ptx module %s has no .global or .const variable %q", m.name, name)
}

// loadConst refreshes the constant bank from its global allocation, before
// a launch. The device's lock is held.
func (m *Module) loadConst() error {
	if m.constAddr == 0 {
		return nil
	}
	return m.dev.mem.read(m.constAddr, m.constBank)
}

// placeConstBank allocates the global memory behind the constant bank once
// every variable is placed, holding the initializers.
func (m *Module) placeConstBank() error {
	if len(m.constBank) == 0 {
		return nil
	}
	addr, err := m.dev.mem.alloc(uint64(len(m.constBank)), fmt.Sprintf("module %s constant bank", m.name))
	if err != nil {
		return fmt.Errorf("ptx module %s: constant bank of %d bytes: %w", m.name, len(m.constBank), err)
	}
	m.constAddr = addr
	return m.dev.mem.write(addr, m.constBank)
}

// Load parses PTX text and decodes every kernel in it. Unsupported
// instructions fail the load, listed with their lines in a *LoadError, as
// a JIT compiler would fail; nothing then runs with semantics the
// interpreter does not model.
func (d *Device) Load(name, text string) (*Module, error) {
	pm, err := parse(name, text)
	if err != nil {
		return nil, &LoadError{Module: name, Errs: []error{err}}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	m := &Module{name: name, dev: d, kernels: map[string]*Kernel{}, globals: map[string]allocation{}, constOff: map[string]int{}, constSize: map[string]int{}, files: pm.files}
	var errs []error
	report := func(err error) {
		var ue *UnsupportedError
		if errors.As(err, &ue) && ue.Module == "" {
			ue.Module = name
		}
		var se *SyntaxError
		if errors.As(err, &se) && se.Module == "" {
			se.Module = name
		}
		errs = append(errs, err)
	}
	for _, v := range pm.vars {
		if err := m.placeVar(v); err != nil {
			report(err)
		}
	}
	if err := m.placeConstBank(); err != nil {
		report(err)
	}
	for _, f := range pm.funcs {
		if !f.entry || !f.hasBody {
			continue
		}
		k, ferrs := decodeKernel(m, f)
		for _, err := range ferrs {
			report(err)
		}
		if k != nil {
			m.kernels[f.name] = k
		}
	}
	if len(errs) > 0 {
		for _, a := range m.globals {
			_ = d.mem.free(a.addr) // undo the variables of a module that failed
		}
		if m.constAddr != 0 {
			_ = d.mem.free(m.constAddr)
		}
		le := &LoadError{Module: name, Errs: errs}
		if len(errs) > maxLoadErrors {
			le.Errs, le.More = errs[:maxLoadErrors], len(errs)-maxLoadErrors
		}
		return nil, le
	}
	return m, nil
}

// placeVar allocates a module-scope variable: .global ones in device
// memory, .const ones in the constant bank, each with its initializer;
// .shared and .local ones are laid out per kernel.
func (m *Module) placeVar(v *varDecl) error {
	switch v.space {
	case "global":
		if v.extern {
			return &UnsupportedError{Line: v.line, Instruction: ".extern .global " + v.name, Why: "variables of other modules"}
		}
		size := uint64(max(v.bytes(), 1))
		addr, err := m.dev.mem.alloc(size, fmt.Sprintf("module %s variable %s", m.name, v.name))
		if err != nil {
			return fmt.Errorf("ptx module %s, line %d: .global %s: %w", m.name, v.line, v.name, err)
		}
		m.globals[v.name] = allocation{addr: addr, size: size}
		init, err := initBytes(v)
		if err != nil {
			return err
		}
		return m.dev.mem.write(addr, init)
	case "const":
		off := int(roundUp(uint64(len(m.constBank)), uint64(max(v.align, 1))))
		init, err := initBytes(v)
		if err != nil {
			return err
		}
		m.constBank = append(m.constBank, make([]byte, off-len(m.constBank))...)
		m.constBank = append(m.constBank, init...)
		m.constOff[v.name] = off
		m.constSize[v.name] = len(init)
	default:
		m.vars = append(m.vars, v)
	}
	return nil
}

// initBytes encodes a variable's initializer (zeros where there is none).
func initBytes(v *varDecl) ([]byte, error) {
	b := make([]byte, v.bytes())
	if len(v.init) > v.count {
		return nil, &SyntaxError{Line: v.line, Msg: fmt.Sprintf("%s: %d initial values for %d elements", v.name, len(v.init), v.count)}
	}
	for i, op := range v.init {
		if op.kind != argNum {
			return nil, &UnsupportedError{Line: v.line, Instruction: "." + v.space + " " + v.name, Why: "initializers other than numbers (addresses of variables)"}
		}
		val, err := immediate(op, v.typ)
		if err != nil {
			return nil, &SyntaxError{Line: v.line, Msg: fmt.Sprintf("%s: %v", v.name, err)}
		}
		for j := 0; j < int(v.typ.size); j++ {
			b[i*int(v.typ.size)+j] = byte(val >> (8 * j))
		}
	}
	return b, nil
}
