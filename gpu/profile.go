package gpu

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/gpu/ptxemu"
)

// Profiles of launches. While a Profiler runs (StartProfile, or Profile
// around a function), every launch on every device, of package cells and
// of the solvers alike, is recorded with its shape, its resources and its
// occupancy; on the emulator with the counts a profiler takes on a card
// too (ptxemu.Profile: warps, instructions, divergent branches, global
// requests and sectors, shared wavefronts and bank conflicts, per PTX
// line). A card's counters need Nsight Compute (ncu): there a profile
// holds the registers the driver reports and the occupancy they allow.
// Without a Profiler, a launch costs one atomic load more.

// The emulator's counts, as package gpu shows them (the types and
// constants of package ptxemu).
type (
	// ProfileCounts are the counts of a kernel's launches: warps,
	// instructions, branches, and the requests, sectors and wavefronts of
	// global and shared memory, per kind of access and per instruction.
	ProfileCounts = ptxemu.Profile
	// MemCounts count the accesses of one kind to one state space.
	MemCounts = ptxemu.MemCounts
	// LineCounts are the counts of one instruction.
	LineCounts = ptxemu.LineCounts
)

// Indices of ProfileCounts.Global and .Shared: loads, stores, atomics.
const (
	AccessLoad   = ptxemu.Load
	AccessStore  = ptxemu.Store
	AccessAtomic = ptxemu.Atomic
)

// AccessNames name the indices AccessLoad, AccessStore and AccessAtomic.
var AccessNames = ptxemu.AccessNames

// SectorBytes is the unit in which global memory moves: 32 bytes.
const SectorBytes = ptxemu.SectorBytes

// LaunchProfile is what one kernel did in one or more launches of the same
// shape (Combine sums launches).
type LaunchProfile struct {
	Kernel string // as the source names it (the PTX name for the solvers' kernels)
	Device string
	// Emulated says that the emulator ran the launches and counted them
	// (Counts); on a card Counts is nil.
	Emulated    bool
	Grid, Block Dim3
	// SharedBytes is a block's shared memory: static and dynamic.
	SharedBytes int
	// Registers per thread, as cuFuncGetAttribute reports them; 0 when
	// unknown (the emulator runs PTX, whose registers are virtual: the
	// card's compiler allocates the real ones).
	Registers int
	Launches  int
	Occupancy Occupancy
	Counts    *ProfileCounts
}

// Occupancy is how many warps of a kernel a multiprocessor holds at once,
// against the most it can hold, and what limits it.
type Occupancy struct {
	BlocksPerSM   int // resident blocks per multiprocessor, as the driver computes it
	WarpsPerSM    int // BlocksPerSM × warps per block
	MaxWarpsPerSM int
	// The limit each resource sets on blocks per multiprocessor: threads,
	// shared memory, registers (0: not known) and the hardware's block
	// slots; 0 for shared memory when the kernel uses none.
	ByThreads, ByShared, ByRegisters, ByBlocks int
	// Limiter names the resource that sets BlocksPerSM: "threads",
	// "shared memory", "registers" or "block slots".
	Limiter string
}

// Fraction is WarpsPerSM / MaxWarpsPerSM: the theoretical occupancy.
func (o Occupancy) Fraction() float64 {
	if o.MaxWarpsPerSM == 0 {
		return 0
	}
	return float64(o.WarpsPerSM) / float64(o.MaxWarpsPerSM)
}

// Profiler records the launches made while it runs.
type Profiler struct {
	mu       sync.Mutex
	launches []*LaunchProfile
	stopped  bool
}

// profilers are the running Profilers; nil when none runs, so that a
// launch checks with one atomic load.
var profilers atomic.Pointer[[]*Profiler]

// profilersMu serialises StartProfile and Stop.
var profilersMu sync.Mutex

// StartProfile starts recording every launch on every device, until Stop.
// Profiling slows the emulator down by about a quarter (blocked
// Floyd-Warshall, n = 256; docs/cell-kernels.md has the measurement) and
// does not change what a card runs.
func StartProfile() *Profiler {
	p := &Profiler{}
	profilersMu.Lock()
	defer profilersMu.Unlock()
	var list []*Profiler
	if cur := profilers.Load(); cur != nil {
		list = slices.Clone(*cur)
	}
	list = append(list, p)
	profilers.Store(&list)
	return p
}

// Stop ends the recording and returns the launches recorded, in order. A
// second Stop returns them again.
func (p *Profiler) Stop() []*LaunchProfile {
	profilersMu.Lock()
	if cur := profilers.Load(); cur != nil && !p.stopped {
		list := slices.DeleteFunc(slices.Clone(*cur), func(q *Profiler) bool { return q == p })
		if len(list) == 0 {
			profilers.Store(nil)
		} else {
			profilers.Store(&list)
		}
	}
	profilersMu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	return slices.Clone(p.launches)
}

// Profile runs f with a Profiler and returns the launches it made, with
// f's error.
func Profile(f func() error) ([]*LaunchProfile, error) {
	p := StartProfile()
	err := f()
	return p.Stop(), err
}

// record adds a launch.
func (p *Profiler) record(lp *LaunchProfile) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stopped {
		p.launches = append(p.launches, lp)
	}
}

// Combine sums the launches of the same kernel, shape and device into one
// LaunchProfile each, in the order of their first launch: the view of a
// host loop's many launches that a table can show side by side.
func Combine(launches []*LaunchProfile) []*LaunchProfile {
	type key struct {
		kernel, device string
		block          Dim3
		shared         int
	}
	var out []*LaunchProfile
	at := map[key]int{}
	for _, lp := range launches {
		k := key{lp.Kernel, lp.Device, lp.Block, lp.SharedBytes}
		i, ok := at[k]
		if !ok {
			c := *lp
			if lp.Counts != nil {
				counts := *lp.Counts
				counts.Lines = slices.Clone(counts.Lines)
				c.Counts = &counts
			}
			at[k] = len(out)
			out = append(out, &c)
			continue
		}
		c := out[i]
		c.Launches += lp.Launches
		if c.Grid != lp.Grid {
			c.Grid = Dim3{} // launches of several grids
		}
		if c.Counts != nil && lp.Counts != nil {
			c.Counts.Add(lp.Counts)
		}
	}
	return out
}

// launchProfiler is a driver.Context that counts what a launch does (the
// emulator's).
type launchProfiler interface {
	ProfileLaunch(ctx context.Context, f driver.Func, grid, block Dim3, sharedBytes int, args []uint64) (*ptxemu.Profile, error)
}

// kernelResources is a driver.Context that tells a kernel's registers per
// thread (0: unknown) and static shared memory.
type kernelResources interface {
	Resources(f driver.Func) (registers, staticShared int, err error)
}

// launch enqueues kernel f, called name, on the device: through the
// driver, and while a Profiler runs, recording the launch. d is held by
// the caller.
func (d *Device) launch(ctx context.Context, f driver.Func, name string, grid, block Dim3, sharedBytes int, args []uint64) error {
	ps := profilers.Load()
	if ps == nil {
		return d.ctx.Launch(ctx, f, grid, block, sharedBytes, args)
	}
	lp := &LaunchProfile{Kernel: name, Device: d.info.Name, Grid: grid, Block: block, Launches: 1}
	var err error
	if p, ok := d.ctx.(launchProfiler); ok {
		lp.Counts, err = p.ProfileLaunch(ctx, f, grid, block, sharedBytes, args)
		lp.Emulated = lp.Counts != nil
	} else {
		err = d.ctx.Launch(ctx, f, grid, block, sharedBytes, args)
	}
	if err != nil {
		return err
	}
	static := 0
	if r, ok := d.ctx.(kernelResources); ok {
		var rerr error
		if lp.Registers, static, rerr = r.Resources(f); rerr != nil {
			lp.Registers, static = 0, 0
		}
	}
	lp.SharedBytes = static + sharedBytes
	blocks, err := d.ctx.MaxActiveBlocks(f, block.Threads(), sharedBytes)
	if err != nil {
		blocks = 0
	}
	lp.Occupancy = occupancy(d.info, block.Threads(), lp.SharedBytes, lp.Registers, blocks)
	for _, p := range *ps {
		p.record(lp)
	}
	return nil
}

// registerUnit is the granularity in which a warp is given registers.
const registerUnit = 256

// reservedShared is the shared memory the driver keeps per block on
// compute capability 8.0 and later.
func reservedShared(info DeviceInfo) int {
	if info.Major >= 8 {
		return 1 << 10
	}
	return 0
}

// blockSlots is how many blocks a multiprocessor holds at most, by compute
// capability (the emulator's, 5.2, is 32).
func blockSlots(info DeviceInfo) int {
	switch {
	case info.Major == 7 && info.Minor == 5:
		return 16
	case info.Major == 8 && info.Minor == 6, info.Major == 8 && info.Minor == 7:
		return 16
	case info.Major == 8 && info.Minor == 9:
		return 24
	}
	return 32
}

// occupancy works out the limits that threads, shared memory, registers
// (when known) and block slots set on a kernel with blocks of threads
// threads, shared bytes of shared memory and registers per thread, on
// device info. driverBlocks is the driver's answer
// (cuOccupancyMaxActiveBlocksPerMultiprocessor, 0 if it gave none), which
// wins where the estimates differ.
func occupancy(info DeviceInfo, threads, shared, registers, driverBlocks int) Occupancy {
	warps := (threads + 31) / 32
	o := Occupancy{MaxWarpsPerSM: info.MaxThreadsPerSM / 32, ByBlocks: blockSlots(info)}
	if warps == 0 || o.MaxWarpsPerSM == 0 {
		return o
	}
	o.ByThreads = o.MaxWarpsPerSM / warps
	if shared > 0 && info.SharedPerSM > 0 {
		o.ByShared = info.SharedPerSM / (shared + reservedShared(info))
	}
	if registers > 0 && info.RegistersPerBlock > 0 {
		// A multiprocessor has as many registers as a block may use
		// (64 Ki on every card since compute capability 5.0).
		perWarp := (registers*32 + registerUnit - 1) / registerUnit * registerUnit
		o.ByRegisters = info.RegistersPerBlock / (perWarp * warps)
	}
	best := o.ByBlocks
	o.Limiter = "block slots"
	for _, l := range []struct {
		n    int
		name string
	}{{o.ByThreads, "threads"}, {o.ByRegisters, "registers"}, {o.ByShared, "shared memory"}} {
		if l.n > 0 && l.n < best {
			best, o.Limiter = l.n, l.name
		}
	}
	o.BlocksPerSM = best
	if driverBlocks > 0 && driverBlocks != best {
		o.BlocksPerSM = driverBlocks
		o.Limiter = fmt.Sprintf("the driver (%d blocks; the estimates give %d, by %s)", driverBlocks, best, o.Limiter)
	}
	o.WarpsPerSM = o.BlocksPerSM * warps
	return o
}
