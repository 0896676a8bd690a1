// Package ptxemu is an interpreter of NVIDIA PTX on the CPU: it loads the
// PTX text that nvcc emits, and runs its kernels exactly, thread by thread,
// without a GPU, a CUDA installation or cgo. Package gpu uses it as its
// "emu" driver, so that every GPU variant runs in tests, in CI and on a
// laptop; a notebook can use it to check a kernel of its own.
//
//	dev := ptxemu.New(ptxemu.Options{})
//	mod, err := dev.Load("fw", ptxText)        // decode every kernel, or fail listing what is unsupported
//	k, err := mod.Kernel("fw_hn")
//	buf, err := dev.Alloc(uint64(4 * n * n))
//	err = dev.WriteInt32(buf, matrix)
//	stats, err := dev.Launch(ctx, k, ptxemu.Dim3{X: nb, Y: nb, Z: 1}, ptxemu.Dim3{X: 32, Y: 32, Z: 1}, 0,
//		[]uint64{uint64(n), uint64(pivot), buf, 0}) // each parameter in the low bytes of a slot
//	err = dev.ReadInt32(buf, matrix)
//
// # What it runs
//
// The subset nvcc emits for pathnotes' kernels and for typical course
// kernels (PTX ISA up to 7.8, 64-bit addressing, plus the packed 16-bit
// integer add, min and max of ISA 8.0; .version and .target are read but
// not checked, so a module for sm_90 loads): modules with .entry
// kernels, parameters, .reg registers and predicates in nested scopes,
// static and dynamic (.extern) .shared variables, .local frames, .global
// and .const variables with initializers; the integer instructions (add,
// sub, mul, mad with .lo, .hi and .wide, mul24, mad24, sad, div, rem, abs,
// neg, min, max, and, or, xor, not, cnot, shl, shr, popc, clz, brev, bfind,
// bfe, bfi, prmt, add.sat; add, min and max on .u16x2 and .s16x2 halves,
// min.relu and max.relu on .s16x2), the single- and double-precision ones
// (add, sub, mul, fma, mad, div, min, max, abs, neg, sqrt, rcp, rsqrt, sin,
// cos, lg2, ex2, tanh, copysign, testp, with .ftz and .sat), setp (every
// comparison, with .and/.or/.xor and two destinations), set, selp, slct,
// predicate logic, cvt between every integer and float type with every
// rounding mode and .sat, mov (with special registers, variable addresses,
// vector packing), cvta, ld, ldu and st in every state space (scalar,
// .v2, .v4), atom and red (add, min, max, inc, dec, and, or, xor, exch, cas
// on global, shared and generic addresses), bra, ret, exit, trap,
// bar.sync, bar.red, bar.warp.sync, membar and fence, shfl, vote, match,
// redux, activemask, and the special registers %tid, %ntid, %ctaid,
// %nctaid, %laneid, %warpid, %nwarpid, %smid, %nsmid, %lanemask_*,
// %clock, %clock64 and %globaltimer.
//
// Device-side printf runs: nvcc's call of vprintf (the format string in a
// .global byte array, the arguments packed in a .local buffer, both passed
// through the .param variables of a call sequence) is formatted as CUDA
// formats it (%d %i %u %x %o %c %s %p %f %e %g %a %%, flags, width,
// precision, length modifiers) and written to Device.SetPrintfOutput's
// writer (os.Stdout by default) when the launch ends, in the order the
// threads executed their printf calls.
//
// Anything else fails the load with an *UnsupportedError per instruction
// ("unsupported PTX instruction call.uni ... at line 12"), collected in a
// *LoadError, as a JIT compiler fails: calls to other .func functions
// (assert's __assertfail among them), textures and surfaces, half
// precision, directed rounding (.rz, .rm, .rp) of div, sqrt and rcp (that
// of add, sub, mul and fma runs, computed exactly and rounded once),
// barriers with a thread count and bar.arrive, carry arithmetic (add.cc), tensor-core and asynchronous-copy
// instructions. A modifier the interpreter does not model is an error too,
// never silently ignored; cache operators and memory-ordering qualifiers
// are accepted because they cannot change a result here (see Memory).
//
// # Execution model
//
// It gives what CUDA guarantees and no more. Blocks run in any order, on
// Options.Workers goroutines at once. The threads of a block run as warps
// of 32 lanes, each decoded instruction executed once per warp for all its
// active lanes; a branch that splits a warp parks one group of lanes and
// goes on with the group at the lower instruction, and groups merge where
// their paths meet again, so lanes reconverge after an if or a loop as on
// a GPU. A group that runs alone for 4096 instructions while another waits
// is swapped with it, so that a lane spinning on a lock held by another
// lane of its warp cannot starve it (the forward progress that Volta and
// later GPUs give). The warps of a block take turns in slices of 2048
// instructions, so threads interleave between barriers.
//
// A bar.sync completes when every thread of the block waits at that same
// barrier; a thread that exited instead, or threads waiting at different
// barriers, stop the launch with a DivergentBarrier fault (a GPU would
// hang or misbehave). The .sync warp instructions (shfl, vote, match,
// redux, bar.warp.sync) wait until every lane of their membermask executes
// them; member lanes that exited, or a lane reading a lane that does not
// take part, stop the launch with a WarpSyncMisuse fault.
//
// # Memory
//
// Global memory is one arena; allocations are 256-byte aligned, and an
// access must lie inside the bytes asked for, not just inside the padding.
// Every global access is an atomic operation of its size, so blocks
// running on different goroutines see a sequentially consistent memory
// (and the race detector sees no race): fences are therefore no-ops, and
// cache and ordering qualifiers change nothing. Shared memory belongs to
// the block, local memory to the thread; generic addresses map the
// shared, local, const and param spaces into windows above global memory,
// as cvta does on a GPU.
//
// # Checks a GPU does not make
//
// Every global, shared and local access is checked against its allocation
// (or the block's shared memory, or the thread's frame) and its alignment.
// An illegal access stops the launch with a *Fault that names the kernel,
// the block and thread, the PTX line and instruction, and the address
// relative to the nearest allocation ("16 bytes past the end of the
// 1024-byte allocation at 0x100000000"); package gpu reports it as the
// sticky CUDA_ERROR_ILLEGAL_ADDRESS a card gives, with that detail.
// Integer division by zero and trap are faults too. With
// Options.CheckUninitialized, reading global memory that no copy, memset
// or store wrote is a fault.
//
// # Statistics, not GPU time
//
// Launch returns Stats: warp and thread instructions, bytes loaded and
// stored per state space, atomics, barriers and warp synchronisations.
// Their Wall field, and anything timed around a launch, is the
// interpreter's time on the CPU: it says nothing about how long the kernel
// takes on a GPU.
//
// With Device.SetProfiler, each launch also yields a Profile: what a
// profiler such as Nsight Compute counts on a card for the memory system.
// Global loads, stores and atomics count their warp-level requests and the
// distinct 32-byte sectors each touches (4 for 32 consecutive words, 32
// for words 128 bytes apart); shared accesses their wavefronts on 32 banks
// of 4 bytes and the conflicts among them; branches count when they split
// a warp; each memory instruction keeps its own counts, with the source
// line its .loc names. A profiled launch runs a copy of the kernel's code
// whose memory instructions and branches count before they execute, so
// that unprofiled launches pay nothing (profile.go). %clock and %clock64 count the warp's instructions (there
// are no cycles); %globaltimer is the host clock in nanoseconds.
//
// Floating-point results are IEEE 754 with round to nearest even, exactly
// as a GPU's for the correctly rounded instructions (fma.rn.f32 included).
// The .approx instructions (sin, cos, lg2, ex2, rcp, rsqrt, tanh, div) are
// computed in double precision and rounded once, so they may differ from a
// GPU's in the last bits, within the error bounds PTX documents.
//
// # Speed
//
// One warp instruction costs a few tens of nanoseconds: BenchmarkInterpreter
// (three-phase blocked Floyd-Warshall, fw_blocked_phase1-3, n = 256,
// distances only) runs 23 to 31 million warp instructions (0.7 to 0.9
// billion thread instructions) per second on two cores of an AMD EPYC
// shared with other work, 0.25 to 0.33 s per run; gpu.FWBlocked on n = 256
// with predecessors takes about 0.4 s on the emulator. That is thousands of
// times slower than a GPU: enough for the tests and for graphs of a few
// hundred vertices.
package ptxemu
