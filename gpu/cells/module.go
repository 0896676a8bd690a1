package cells

import (
	"fmt"
	"math"
	"strings"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/gpu/ptxemu"
)

// Module is PTX text loaded into a device (cuModuleLoadData): its kernels
// and its __device__ and __constant__ variables. A module loaded before
// the device's context was reset (after a kernel fault) is gone: load it
// again.
type Module struct {
	dev     *gpu.Device
	sess    *Session // the session whose launches' context it takes; nil for LoadPTX's
	name    string
	handle  driver.Module
	epoch   int
	ptx     string
	decls   ptxemu.Decls
	kernels map[string]*Kernel // by PTX name, made on first use
	// varTypes are element types the CUDA source declares (an int array
	// is a .b8 array in PTX), preferred to the PTX type.
	varTypes map[string]ElemType
	// Origin says where the PTX came from ("nvcc 11.8", "%%ptx cell"),
	// for the magics' summaries.
	Origin string
}

// Kernel is a __global__ function of a Module, ready to launch.
type Kernel struct {
	mod   *Module
	entry ptxemu.Entry
	fn    driver.Func
	epoch int // of fn
}

// LoadPTX loads PTX text into device d as a module called name (the name
// shows in error messages), outside any Session: its kernels' launches
// take context.Background() and print to os.Stdout (Session.Load
// registers a module in a session instead). The driver compiles it for
// the device (the cuda driver's JIT; the emulator decodes it, and fails
// on instructions it does not run); a compile error carries the log.
func LoadPTX(d *gpu.Device, name, ptx string) (*Module, error) {
	decls, err := ptxemu.ParseDecls(name, ptx)
	if err != nil {
		return nil, fmt.Errorf("gpu: LoadPTX %s: %w", name, err)
	}
	h := d.Hold()
	defer h.Release()
	c, err := byteContext(h)
	if err != nil {
		return nil, err
	}
	mh, err := c.LoadModule(name, ptx)
	if err != nil {
		return nil, cellErr(h, err, "loading PTX module %s on %s", name, d.Info().Name)
	}
	return &Module{dev: d, name: name, handle: mh, epoch: d.Epoch(), ptx: ptx, decls: decls,
		kernels: map[string]*Kernel{}, varTypes: map[string]ElemType{}}, nil
}

// Name returns the module's name.
func (m *Module) Name() string { return m.name }

// PTX returns the module's PTX text.
func (m *Module) PTX() string { return m.ptx }

// Device returns the device the module is loaded in.
func (m *Module) Device() *gpu.Device { return m.dev }

// Kernels returns the names of the module's kernels as the source names
// them (C++ names demangled: "vecAdd", not "_Z6vecAddPfS_S_i"), in the
// order of the PTX; overloads that share a name are listed by PTX name.
func (m *Module) Kernels() []string {
	count := map[string]int{}
	for _, e := range m.decls.Entries {
		count[demangle(e.Name)]++
	}
	names := make([]string, 0, len(m.decls.Entries))
	for _, e := range m.decls.Entries {
		if n := demangle(e.Name); count[n] == 1 {
			names = append(names, n)
		} else {
			names = append(names, e.Name)
		}
	}
	return names
}

// Vars returns the names of the module's __device__ and __constant__
// variables.
func (m *Module) Vars() []string {
	var names []string
	for _, v := range m.decls.Vars {
		// printf's format strings and the CUDA math library's tables
		if !strings.HasPrefix(v.Name, "$str") && !strings.HasPrefix(v.Name, "__cudart_") {
			names = append(names, v.Name)
		}
	}
	return names
}

// String summarises the module: its kernels with their parameters, and
// its variables.
func (m *Module) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "module %s on %s:", m.name, m.dev.Info().Name)
	names := m.Kernels()
	for i, e := range m.decls.Entries {
		fmt.Fprintf(&sb, " %s", signature(names[i], e))
		if i < len(names)-1 {
			sb.WriteString(",")
		}
	}
	if vars := m.Vars(); len(vars) > 0 {
		fmt.Fprintf(&sb, "; variables %s", strings.Join(vars, ", "))
	}
	return sb.String()
}

// signature formats a kernel as "vecAdd(.u64 a, .u32 n)", with PTX
// parameter names shortened to what follows the kernel's name.
func signature(name string, e ptxemu.Entry) string {
	ps := make([]string, len(e.Params))
	for i, p := range e.Params {
		p.Name = strings.TrimPrefix(p.Name, e.Name+"_")
		ps[i] = paramString(p)
	}
	return name + "(" + strings.Join(ps, ", ") + ")"
}

// usable returns the context of the module's device, which h holds, if
// the module was loaded in it.
func (m *Module) usable(h *gpu.Hold) (cellContext, error) {
	c, err := byteContext(h)
	if err != nil {
		return nil, err
	}
	if m.epoch != m.dev.Epoch() {
		return nil, fmt.Errorf("gpu: module %s was lost when the device's context was reset after a kernel fault; load it again (run its %%%%cuda or %%%%ptx cell again)", m.name)
	}
	return c, nil
}

// Kernel returns the kernel called name: its source name ("vecAdd") or
// its PTX name ("_Z6vecAddPfS_S_i"). The error lists the kernels the
// module has.
func (m *Module) Kernel(name string) (*Kernel, error) {
	var found []ptxemu.Entry
	for _, e := range m.decls.Entries {
		if e.Name == name {
			found = []ptxemu.Entry{e}
			break
		}
		if demangle(e.Name) == name {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("gpu: module %s has no kernel %q (kernels: %s)", m.name, name, listOrNone(m.Kernels()))
	case 1:
	default:
		names := make([]string, len(found))
		for i, e := range found {
			names[i] = e.Name
		}
		return nil, fmt.Errorf("gpu: module %s has %d kernels called %s (overloads): name one by its PTX name: %s",
			m.name, len(found), name, strings.Join(names, ", "))
	}
	h := m.dev.Hold()
	defer h.Release()
	if k, ok := m.kernels[found[0].Name]; ok {
		return k, nil
	}
	k := &Kernel{mod: m, entry: found[0]}
	m.kernels[found[0].Name] = k
	return k, nil
}

// listOrNone joins names, or says "none".
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Var returns a __device__ (.global) or __constant__ (.const) variable of
// the module as a Buffer (cuModuleGetGlobal), to write from the host as
// cudaMemcpyToSymbol does and read back as cudaMemcpyFromSymbol does.
// Its element type is the one the CUDA source declares, where the module
// came from a %%cuda cell, else the PTX type's (.f32 Float32, .u32 and
// .b32 Uint32, .s32 Int32, .f64 Float64; a .b8 array, as nvcc declares
// every array, Uint32); VarAs picks another. An array gives Len > 1.
func (m *Module) Var(name string) (*Buffer, error) { return m.VarAs(name, 0) }

// VarAs is Var with the element type t (0: as Var decides), for a .b8
// array that holds floats, say.
func (m *Module) VarAs(name string, t ElemType) (*Buffer, error) {
	var decl *ptxemu.Var
	for i := range m.decls.Vars {
		if m.decls.Vars[i].Name == name {
			decl = &m.decls.Vars[i]
		}
	}
	if decl == nil {
		return nil, fmt.Errorf("gpu: module %s has no __device__ or __constant__ variable %q (variables: %s)", m.name, name, listOrNone(m.Vars()))
	}
	if t == 0 {
		t = m.varTypes[name]
	}
	if t == 0 {
		var ok bool
		if t, ok = ptxElemType(decl.Type); !ok {
			return nil, fmt.Errorf("gpu: module %s: variable %s is .%s, which is none of int32, uint32, float32, float64 (use VarAs to read its bytes as one of them)", m.name, name, decl.Type)
		}
	}
	if !t.valid() {
		return nil, fmt.Errorf("gpu: VarAs %s: unknown element type %v", name, t)
	}
	h := m.dev.Hold()
	defer h.Release()
	c, err := m.usable(h)
	if err != nil {
		return nil, err
	}
	addr, size, err := c.Global(m.handle, name)
	if err != nil {
		return nil, cellErr(h, err, "variable %s of module %s", name, m.name)
	}
	if size%uint64(t.Size()) != 0 {
		return nil, fmt.Errorf("gpu: module %s: variable %s has %d bytes, not a whole number of %s", m.name, name, size, t)
	}
	return &Buffer{dev: m.dev, ptr: addr, n: int(size / uint64(t.Size())), typ: t, epoch: m.epoch,
		variable: m.name + "." + name}, nil
}

// ptxElemType is the Buffer type of a PTX variable type.
func ptxElemType(ptx string) (ElemType, bool) {
	switch ptx {
	case "s32":
		return Int32, true
	case "u32", "b32", "b8":
		return Uint32, true
	case "f32":
		return Float32, true
	case "f64":
		return Float64, true
	}
	return 0, false
}

// Name returns the kernel's name as its source spells it.
func (k *Kernel) Name() string { return demangle(k.entry.Name) }

// PTXName returns the kernel's name in the PTX (mangled, for C++).
func (k *Kernel) PTXName() string { return k.entry.Name }

// Signature formats the kernel with its PTX parameters, e.g.
// "vecAdd(.u64 param_0, .u64 param_1, .u32 param_2)".
func (k *Kernel) Signature() string { return signature(k.Name(), k.entry) }

// values converts launch arguments to parameter slots, checking them
// against the kernel's .param list. The device is held (buffers are
// checked).
func (k *Kernel) values(args []any) ([]uint64, error) {
	ps := k.entry.Params
	if len(args) != len(ps) {
		return nil, fmt.Errorf("kernel %s: %d arguments for %d parameters: %s", k.Name(), len(args), len(ps), k.Signature())
	}
	vals := make([]uint64, len(args))
	for i, a := range args {
		p := ps[i]
		float := p.Type == "f32" || p.Type == "f64"
		mismatch := func(hint string) error {
			msg := fmt.Sprintf("kernel %s: argument %d is %s but parameter %d is .%s", k.Name(), i, argKind(a), i, p.Type)
			if hint != "" {
				msg += " (" + hint + ")"
			}
			return fmt.Errorf("%s; the kernel is %s", msg, k.Signature())
		}
		if p.Size > 8 || p.Type == "b8" && p.Size > 1 {
			return nil, fmt.Errorf("kernel %s: parameter %d is a %d-byte aggregate (a struct passed by value); the cell API passes scalars and pointers only", k.Name(), i, p.Size)
		}
		switch v := a.(type) {
		case *Buffer:
			if p.Size != 8 || float {
				return nil, mismatch("a buffer is a 64-bit address")
			}
			if err := v.use(); err != nil {
				return nil, fmt.Errorf("kernel %s: argument %d: %w", k.Name(), i, err)
			}
			if v.dev != k.mod.dev {
				return nil, fmt.Errorf("kernel %s: argument %d: %s is on another device", k.Name(), i, v)
			}
			vals[i] = uint64(v.ptr)
		case gpu.DevicePtr:
			if p.Size != 8 || float {
				return nil, mismatch("an address is 64 bits")
			}
			vals[i] = uint64(v)
		case int:
			switch {
			case float:
				return nil, mismatch(fmt.Sprintf("pass %s(%d)", goFloat(p.Type), v))
			case p.Size == 8:
				vals[i] = uint64(v)
			case p.Size == 4 && (v < math.MinInt32 || v > math.MaxUint32 || v > math.MaxInt32 && p.Type == "s32"):
				return nil, fmt.Errorf("kernel %s: argument %d = %d does not fit parameter %d (.%s)", k.Name(), i, v, i, p.Type)
			case p.Size == 4:
				vals[i] = uint64(uint32(v))
			default:
				return nil, mismatch(fmt.Sprintf("a %d-byte parameter", p.Size))
			}
		case int32, uint32:
			if p.Size != 4 || float {
				return nil, mismatch("")
			}
			vals[i] = uint64(toUint32(v))
		case int64, uint64:
			if p.Size != 8 || float {
				return nil, mismatch("")
			}
			vals[i] = toUint64(v)
		case float32:
			if p.Type != "f32" && p.Type != "b32" {
				return nil, mismatch("")
			}
			vals[i] = uint64(math.Float32bits(v))
		case float64:
			switch p.Type {
			case "f64", "b64":
				vals[i] = math.Float64bits(v)
			case "f32":
				return nil, mismatch("pass float32(x) for a float parameter")
			default:
				return nil, mismatch("")
			}
		default:
			return nil, fmt.Errorf("kernel %s: argument %d has type %T; want *cells.Buffer, int, int32, uint32, int64, uint64, float32, float64 or gpu.DevicePtr", k.Name(), i, a)
		}
	}
	return vals, nil
}

// argKind names an argument's Go type for messages.
func argKind(a any) string {
	if _, ok := a.(*Buffer); ok {
		return "*cells.Buffer"
	}
	return fmt.Sprintf("%T", a)
}

// goFloat is the Go type of a float parameter.
func goFloat(ptx string) string {
	if ptx == "f64" {
		return "float64"
	}
	return "float32"
}

func toUint32(v any) uint32 {
	if x, ok := v.(int32); ok {
		return uint32(x)
	}
	return v.(uint32)
}

func toUint64(v any) uint64 {
	if x, ok := v.(int64); ok {
		return uint64(x)
	}
	return v.(uint64)
}
