// Package gpu runs the shortest-path variants of the source documents on
// CUDA GPUs and returns the same result types as package cpu
// (graph.AllPairs, graph.SingleSource), so that answers compare cell by
// cell.
//
// # Variants
//
// Each function of the documents' variants keeps its document's thread
// mapping, block and tile shapes and host loop, fixes the bugs found in the
// documents' listings (each doc comment says which), is correct for every
// n (tiles are padded with INF, loads are guarded), and checks ctx between
// launches. The table lists every variant, the documents' first, then
// pathnotes' own; the registry in variants.go holds every fact of a
// variant, and TestVariantTables checks this table and docs/design.md's
// against it (go test ./gpu -run TestVariantTables -update writes them):
//
//	FWHN             fw-hn              Floyd-Warshall, one launch per k
//	FWHNShared       fw-hn-shared       Floyd-Warshall, d[i][k] through shared memory
//	FWRow            fw-row             Floyd-Warshall, one thread per row
//	FWTiledGlobal    fw-tiled-global    Floyd-Warshall, three phases in global memory
//	FWBlocked        fw-blocked         Floyd-Warshall, three phases in shared-memory tiles
//	FWGaioso         fw-gaioso          Floyd-Warshall, two kernels per stage
//	DijkstraMartin   dijkstra-martin    Dijkstra, frontier relax / minimum / update
//	DijkstraAPSPRow  dijkstra-apsp-row  Dijkstra for all pairs, one thread per source
//	BFNaive          bf-naive           Bellman-Ford, one thread per vertex
//	BFStride         bf-stride          Bellman-Ford, grid-stride loops
//	BFFlag           bf-flag            Bellman-Ford, only the vertices that changed
//	APSPBatched      apsp-batched       all pairs, sssp-fast's engine one source per block
//	BFFast           bf-fast            Bellman-Ford on worklists, early exit, negative cycles
//	FWFast           fw-fast            Floyd-Warshall on 128×128 tiles
//	JohnsonFast      johnson-fast       Johnson: bf-fast from a virtual source for potentials, apsp-batched on the reweighted arcs
//	SSSPFast         sssp-fast          single source: near-far worklists (on meshes, idle blocks take the spilled work of a step); a flag frontier Bellman-Ford on graphs without hubs of mean out-degree above 4.5
//
// pathnotes' own solvers follow no document and aim at speed: FWFast
// (blocked Floyd-Warshall on 128×128 tiles), SSSPFast and BFFast (near-far
// worklists on one persistent grid; sssp-fast runs a flag frontier
// Bellman-Ford instead on graphs without hubs of mean out-degree above
// 4.5), APSPBatched (one source per block) and JohnsonFast (bf-fast's
// potentials, then apsp-batched on reweighted arcs); PickAllPairs chooses
// among fw-fast, apsp-batched and johnson-fast for a graph.
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
// The package's files are named by layer: device*.go (devices, their
// options, Hold: the device lent to package cells), variants_*.go (the
// documents' variants), fast_*.go (pathnotes' own solvers), multi.go (runs
// on several devices), profile.go (the launch profile) and solve_*.go
// (what both kinds of solver share: runs, input and result checks). The
// drivers (cuda and emu) are package gpu/driver's; kernels that notebooks
// write in cells (buffers, modules, launches, printf, CUDA C compiled by
// gpu/internal/rtc) are package gpu/cells's.
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
// limits. The variants run on the device through the small driver
// interface of package gpu/driver (memory, copies, memset, module loading,
// launches, synchronisation, events), never through a CUDA type, so that
// another driver can be added without touching them. PTX comes from package ptx,
// loaded once per context on first use; a JIT failure carries the JIT log.
// Every run asked for Stats (Options.Stats) fills them from CUDA events:
// kernel time, transfer times, launches, bytes moved (a run that is not
// asked queues fewer events). New device buffers are filled with a poison
// value that no result may hold, so a cell no kernel wrote is reported,
// not returned (but for buffers written whole before anything reads them). Errors the driver reports without damage (a
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
