package gpu

import (
	"fmt"
	"strings"
	"sync"
)

// The kernels of %%cuda and %%ptx cells: each cell loads a module on the
// default device and registers it here, so that a Go cell launches its
// kernels by name. A later definition of a name wins, as a later cell
// redefines a Go function.

var cells struct {
	sync.Mutex
	mods []*Module // in load order; a module replaced by name is removed
}

// LoadCellPTX loads PTX text on the default device as module name and
// registers its kernels and variables for GetKernel, GetVar and Launch,
// replacing a module of the same name (an empty name means the first
// kernel's). The %%ptx magic calls it.
func LoadCellPTX(name, ptx string) (*Module, error) {
	return loadCell(name, ptx, "PTX", nil)
}

// loadCell loads and registers a cell module; varTypes are the element
// types the CUDA source gives its variables (nil for PTX).
func loadCell(name, ptx, origin string, varTypes map[string]ElemType) (*Module, error) {
	if name == "" {
		var err error
		if name, err = firstKernel(ptx); err != nil {
			return nil, err
		}
	}
	d, err := Default()
	if err != nil {
		return nil, err
	}
	m, err := d.LoadPTX(name, ptx)
	if err != nil {
		return nil, err
	}
	m.Origin = origin
	for k, v := range varTypes {
		m.varTypes[k] = v
	}
	cells.Lock()
	defer cells.Unlock()
	kept := cells.mods[:0]
	for _, old := range cells.mods {
		if old.name != name {
			kept = append(kept, old)
		}
	}
	cells.mods = append(kept, m)
	return m, nil
}

// cellModules returns the modules of the cells, oldest first.
func cellModules() []*Module {
	cells.Lock()
	defer cells.Unlock()
	return append([]*Module(nil), cells.mods...)
}

// GetKernel returns the kernel called name (as the source names it, or
// its PTX name) of the latest cell module that has one. The error lists
// the known kernels.
func GetKernel(name string) (*Kernel, error) {
	mods := cellModules()
	for i := len(mods) - 1; i >= 0; i-- {
		for _, e := range mods[i].decls.Entries {
			if e.Name == name || demangle(e.Name) == name {
				return mods[i].Kernel(name)
			}
		}
	}
	var known []string
	for _, m := range mods {
		for _, k := range m.Kernels() {
			known = append(known, m.name+"."+k)
		}
	}
	if len(known) == 0 {
		return nil, fmt.Errorf("gpu: no cell kernel %q: no %%%%cuda or %%%%ptx cell has been run", name)
	}
	return nil, fmt.Errorf("gpu: no cell kernel %q (known: %s)", name, strings.Join(known, ", "))
}

// GetVar returns the __device__ or __constant__ variable called name of
// the latest cell module that has one (see Module.Var).
func GetVar(name string) (*Buffer, error) {
	mods := cellModules()
	var known []string
	for i := len(mods) - 1; i >= 0; i-- {
		for _, v := range mods[i].Vars() {
			if v == name {
				return mods[i].Var(name)
			}
			known = append(known, mods[i].name+"."+v)
		}
	}
	return nil, fmt.Errorf("gpu: no cell variable %q (known: %s)", name, listOrNone(known))
}

// Launch runs the cell kernel called name and waits for it: GetKernel,
// then Kernel.Launch. A fault of the kernel is its error, a *LaunchError
// naming the kernel (and on the emulator the block, thread and PTX line).
func Launch(name string, grid, block Dim3, args ...any) error {
	k, err := GetKernel(name)
	if err != nil {
		return err
	}
	return k.Launch(grid, block, args...)
}

// LaunchAsync enqueues the cell kernel called name and returns before it
// ends, as kernel<<<...>>> does: GetKernel, then Kernel.LaunchAsync. Its
// fault is reported by Synchronize (or the next call that waits),
// naming the kernel.
func LaunchAsync(name string, grid, block Dim3, args ...any) error {
	k, err := GetKernel(name)
	if err != nil {
		return err
	}
	return k.LaunchAsync(grid, block, args...)
}

// Synchronize waits for the launches on the default device, as
// cudaDeviceSynchronize does, and returns the fault of one made with
// LaunchAsync, naming its kernel (see Device.Synchronize).
func Synchronize() error {
	d, err := Default()
	if err != nil {
		return err
	}
	return d.Synchronize()
}

// DescribeCells lists the modules of the cells, one per line, for %gpu.
func DescribeCells() string {
	mods := cellModules()
	if len(mods) == 0 {
		return "cell modules: none (define kernels in %%cuda or %%ptx cells)"
	}
	var sb strings.Builder
	sb.WriteString("cell modules:")
	for _, m := range mods {
		fmt.Fprintf(&sb, "\n  %s (%s, %s)", m, m.Origin, ageOf(m))
	}
	return sb.String()
}

// ageOf says whether a module is still loaded.
func ageOf(m *Module) string {
	m.dev.mu.Lock()
	defer m.dev.mu.Unlock()
	if m.epoch != m.dev.epoch {
		return "lost in a context reset"
	}
	return "loaded"
}
