// Package gpu runs the shortest-path variants of the source documents on
// CUDA GPUs and returns the same result types as package cpu
// (graph.AllPairs, graph.SingleSource), so that answers compare cell by
// cell.
//
// # Variants
//
// Each function keeps its document's thread mapping, block and tile shapes
// and host loop, fixes the bugs found in the documents' listings (each doc comment says
// which), is correct for every n (tiles are padded with INF, loads are
// guarded), and checks ctx between launches:
//
//	FWHN             fw-hn              one launch per k, 32×32 blocks      Karaula "CUDA v1", Bodra "Super Naive"
//	FWHNShared       fw-hn-shared       1-D blocks, d[i][k] in shared       Bodra "Super Naive Shared"
//	FWRow            fw-row             one thread per row                  Bodra "Naive"
//	FWTiledGlobal    fw-tiled-global    3 phases, global memory             Bodra "Tiled"
//	FWBlocked        fw-blocked         3 phases, shared-memory tiles       Karaula "CUDA v2", Bodra "Tiled Shared"
//	FWGaioso         fw-gaioso          2 kernels, persistent phase 1       Gaioso et al.
//	DijkstraMartin   dijkstra-martin    relax / minimum / update            Musap (Martín et al.)
//	DijkstraAPSPRow  dijkstra-apsp-row  one thread per source               Bodra
//	BFNaive, BFStride, BFFlag           bf-naive, bf-stride, bf-flag        Bodra
//
// Beside them are pathnotes' own solvers, which follow no document and aim
// at speed: FWFast (fw-fast, blocked Floyd-Warshall on 128×128 tiles),
// SSSPFast and BFFast (sssp-fast and bf-fast, near-far worklists on one
// persistent grid; sssp-fast runs a flag frontier Bellman-Ford instead on
// graphs without hubs of mean out-degree above 4.5), APSPBatched (apsp-batched, one source per block) and
// JohnsonFast (johnson-fast: bf-fast's potentials, then apsp-batched on
// reweighted arcs); PickAllPairs chooses among fw-fast, apsp-batched and
// johnson-fast for a graph.
//
// Several cards of one host share a run when Options.Devices lists them
// (OpenAll opens every one): fw-fast gives each a stripe of block rows and
// copies each stage's primary row between them, apsp-batched and
// johnson-fast split the sources. fw-fast streams matrices larger than the
// device (or Options.DeviceMemory) through it from page-locked host memory,
// copies in and out on streams of their own beside the kernels.
//
// Variants lists them all with their sources; Lookup, AllPairs and
// SingleSource run one by name, so notebooks and `pathnotes bench` can loop
// over them.
//
// # Files
//
// The package's files are named by layer: driver_*.go (the cuda and emu
// drivers behind one small interface), device*.go (devices, their errors),
// cell_*.go (the API for kernels written in notebook cells: buffers,
// modules, launches, printf, CUDA C compiled by gpu/internal/rtc),
// variants_*.go (the documents' variants), fast_*.go (pathnotes' own
// solvers), multi.go (runs on several devices) and solve_*.go (what both kinds of solver share: runs, input
// and result checks).
//
// Distances are int32 and graph.Inf (INT_MAX) means unreachable, as in the
// documents: a kernel relaxes only when both operands are finite. Inputs
// whose paths could leave ±graph.MaxDistance are rejected. Predecessors
// (Options.Pred) follow the documents' Π convention everywhere, also where
// a document computes them otherwise. A negative cycle is a
// *graph.NegativeCycleError with the cycle (Floyd-Warshall sees it on the
// diagonal, Bellman-Ford in one more pass); Dijkstra rejects negative arcs.
//
// # The device API and its drivers
//
// A Device (Open, Default) is one GPU; Describe lists them with their
// limits. The variants run on the device through a small driver
// interface (memory, copies, memset, module loading, launches,
// synchronisation, events), never through a CUDA type, so that another
// driver can be added without touching them. PTX comes from package ptx,
// loaded once per context on first use; a JIT failure carries the JIT log.
// Every run fills Stats (Options.Stats) from CUDA events: kernel time,
// transfer times, launches, bytes moved. New device buffers are filled
// with a poison value that no result may hold, so a cell no kernel wrote
// is reported, not returned. Errors the driver reports without damage (a
// launch shape it refuses, a JIT failure, memory it cannot give) leave the
// device usable. A sticky error (an illegal address, a kernel trap) fails
// the run and the device resets its context at once; but after an illegal
// memory access the CUDA driver refuses all further GPU work in the
// process (NVIDIA documents that the process must be restarted; seen with
// driver 580 on an H100, where even a new context fails), so every later
// call then fails at once with an error that says to restart the kernel.
// The kernels are checked with compute-sanitizer so that they do not fault.
//
// The environment variable PATHNOTES_GPU picks the driver: cuda, emu (an
// interpreter of the kernels' PTX on the CPU, in package gpu/ptxemu: exact,
// bounds-checked and slow; its times are wall time on the CPU, not GPU
// time) or off. Unset, it means cuda when CUDA works and emu otherwise.
//
// # Building with CUDA
//
// Without build tags the package needs neither cgo nor CUDA: the cuda
// driver is missing (PATHNOTES_GPU=cuda gives ErrNoCUDA) and everything
// runs on the emulator. The cuda driver, on gorgonia.org/cu, is built with
// the tag cuda and needs the CUDA headers and libcuda at build time:
//
//	CGO_CFLAGS="-I$PWD/gpu/cudacompat" go build -tags cuda ./...
//
// CUDA 11.x and 12.x headers work as they are. CUDA 13 changed the
// signatures of cuCtxCreate, cuMemAdvise, cuMemPrefetchAsync,
// cuGraphAddDependencies and cuGraphGetEdges, and gorgonia.org/cu v0.9.6
// no longer compiles against them; the directory gpu/cudacompat holds a
// cuda.h that includes the real one and maps those names to the older
// entry points the driver still exports (and cuEventElapsedTime, which
// CUDA 13 maps to a _v2 symbol that drivers before 12.8 lack, to its
// original). It must come first on CGO_CFLAGS, as above; with older
// headers it changes nothing. Go's build cache does not notice a change of
// CUDA headers outside the module: after switching toolkits, run
// `go clean -cache` (or change CGO_CFLAGS) so that gorgonia.org/cu is
// compiled again. Seen working: CUDA 11.8 headers as they are, and CUDA
// 13.0 headers through the shim, both on an H100 with driver 580.
//
// A binary built with the tag needs the NVIDIA driver (libcuda.so.1) to
// start, and a visible GPU: gorgonia.org/cu initialises the driver when the
// program starts and exits with a message if that fails. Build without the
// tag for machines without a GPU.
package gpu
