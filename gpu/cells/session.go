package cells

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/driver"
)

// Session is the state of the kernels of one notebook session: the
// modules its %%cuda and %%ptx cells loaded (each cell loads a module on
// the default device and registers it, so that a Go cell launches its
// kernels by name; a later definition of a name wins, as a later cell
// redefines a Go function), the context of its launches and where their
// device-side printf goes. The zero Session is ready to use, with
// context.Background() and os.Stdout.
//
// In a notebook, the methods of the session's Session are the functions
// of package cells: cells.Launch("vecAdd", ...) is Session.Launch.
type Session struct {
	// Context, when set, gives the context of every launch of the
	// session's kernels (Launch, LaunchAsync, the Kernel methods of the
	// same names, Kernel.Time), called at each launch. Cancelling it stops
	// a kernel running on the emulator: its launch returns an error that
	// wraps the context's error (errors.Is(err, context.Canceled)), the
	// blocks that ran keep what they wrote, and the device stays usable.
	// A kernel running on a GPU cannot be stopped. The notebook kernel sets
	// it to the running cell's context, so that interrupting a cell stops
	// an endless emulated kernel. Set it before the first launch.
	Context func() context.Context
	// Printf, when set, is where the device-side printf of the session's
	// kernels goes on the emulator, which writes a launch's output when
	// the launch ends, in the order the threads printed; nil means
	// os.Stdout. On a GPU the CUDA driver prints to the process's standard
	// output when the host synchronises, as in a CUDA C program. The
	// notebook kernel sets it to the cells' output. Set it before the
	// first launch.
	Printf io.Writer

	mu   sync.Mutex
	mods []*Module // in load order; a module replaced by name is removed
}

// launchContext returns the context for a launch of s's kernels now, which
// carries the printf output to the driver; a nil s means a module loaded
// outside a session (LoadPTX).
func (s *Session) launchContext() context.Context {
	ctx := context.Background()
	if s == nil {
		return ctx
	}
	if s.Context != nil {
		if c := s.Context(); c != nil {
			ctx = c
		}
	}
	if s.Printf == nil {
		return ctx
	}
	return driver.WithPrintf(ctx, s.Printf)
}

// Load loads PTX text on the default device as module name and registers
// its kernels and variables for GetKernel, GetVar and Launch, replacing a
// module of the same name (an empty name means the first kernel's). The
// %%ptx magic calls it.
func (s *Session) Load(name, ptx string) (*Module, error) {
	return s.load(name, ptx, "PTX", nil)
}

// load loads and registers a cell module; varTypes are the element types
// the CUDA source gives its variables (nil for PTX).
func (s *Session) load(name, ptx, origin string, varTypes map[string]ElemType) (*Module, error) {
	if name == "" {
		var err error
		if name, err = firstKernel(ptx); err != nil {
			return nil, err
		}
	}
	d, err := gpu.Default()
	if err != nil {
		return nil, err
	}
	m, err := LoadPTX(d, name, ptx)
	if err != nil {
		return nil, err
	}
	m.sess = s
	m.Origin = origin
	for k, v := range varTypes {
		m.varTypes[k] = v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.mods[:0]
	for _, old := range s.mods {
		if old.name != name {
			kept = append(kept, old)
		}
	}
	s.mods = append(kept, m)
	return m, nil
}

// modules returns the modules of the session, oldest first.
func (s *Session) modules() []*Module {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Module(nil), s.mods...)
}

// GetKernel returns the kernel called name (as the source names it, or
// its PTX name) of the latest module of the session that has one. The
// error lists the known kernels.
func (s *Session) GetKernel(name string) (*Kernel, error) {
	mods := s.modules()
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
// the latest module of the session that has one (see Module.Var).
func (s *Session) GetVar(name string) (*Buffer, error) {
	mods := s.modules()
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

// Launch runs the kernel called name and waits for it: GetKernel, then
// Kernel.Launch. A fault of the kernel is its error, a *LaunchError
// naming the kernel (and on the emulator the block, thread and PTX line).
func (s *Session) Launch(name string, grid, block gpu.Dim3, args ...any) error {
	k, err := s.GetKernel(name)
	if err != nil {
		return err
	}
	return k.Launch(grid, block, args...)
}

// LaunchAsync enqueues the kernel called name and returns before it ends,
// as kernel<<<...>>> does: GetKernel, then Kernel.LaunchAsync. Its fault
// is reported by Synchronize (or the next call that waits), naming the
// kernel.
func (s *Session) LaunchAsync(name string, grid, block gpu.Dim3, args ...any) error {
	k, err := s.GetKernel(name)
	if err != nil {
		return err
	}
	return k.LaunchAsync(grid, block, args...)
}

// Synchronize waits for the launches on the default device, as
// cudaDeviceSynchronize does, and returns the fault of one made with
// LaunchAsync, naming its kernel (see gpu.Device.Synchronize).
func (s *Session) Synchronize() error {
	d, err := gpu.Default()
	if err != nil {
		return err
	}
	return d.Synchronize()
}

// Describe lists the modules of the session, one per line, for %gpu.
func (s *Session) Describe() string {
	mods := s.modules()
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
	if m.epoch != m.dev.Epoch() {
		return "lost in a context reset"
	}
	return "loaded"
}
