// Package lab checks and times the all-pairs and single-source kernels a
// student writes in notebook cells, for the exercises of the Greek lab
// handout [Lab handout]: Floyd-Warshall on the GPU, first one launch per
// pivot (1-D and 2-D blocks), then tiled in global memory, then tiled in
// shared memory, each compared with the tiled CPU version.
//
// The student writes kernels in %%cuda cells and a Go function with a
// fixed signature that launches them (an APSPFunc or an SSSPFunc). The
// checker runs that function on seeded graphs of many sizes — sizes that
// are not multiples of a tile, sparse graphs with unreachable pairs, dense
// graphs, graphs with negative arcs — compares every cell with the CPU
// reference and reports the first wrong one with its graph, n, position,
// expected and actual value, and a guess at what went wrong:
//
//	rep, err := lab.CheckAPSP(Ctx(), myFW, lab.CheckOptions{Negative: true})
//	rep                  // a table: one row per graph, "ok" or the first wrong cell
//	if err != nil { ... } // the first failure, in words
//
// The timing functions run the student's functions beside the project's
// own GPU variants and the CPU baseline and give a table of times and
// speed-ups and plots of them.
//
// Build names the pathnotes build and its git commit, which the first cell
// of every sample notebook prints beside the GPU, and which `pathnotes
// version` and the benchmark reports record: the build that produced a
// notebook's outputs or a measurement.
//
// The sample notebooks measure with the same harness: OpenMachine names
// the CPU and opens the GPU, with the words their tables and notes use
// (Machine.Seconds is a time's cell, NoGPU what the GPU cells say without
// a device, Machine.AllPairs a GPU variant's run), Mean is the mean of up
// to three runs of a GPU call and MeanAllPairs of an all-pairs solver's
// runs, each checked against a reference. The helpers that the notebooks'
// tables and claims share live here too, so that a notebook's cells show
// the experiment and not its plumbing: the measure-and-check steps that
// experiments repeat (MeanVerified, Machine.AgreeCell, Machine.MeanChecked,
// SampleRows, Machine.Capped for a run left over a time cap), the plot
// helpers that set a document's values beside measured ones
// (DocumentedApart, MeasuredLine, MeasuredSpeedup), FitLine, Span,
// Verdict, Extrapolate and the other readers of measured values,
// VertexSet and DistList for a document's notation, RaceRuns and
// RaceVerdict for racing kernels, the stand-ins of the documents' inputs
// (RoadStandIn, GNMStandIn, GNM), and ReadApart, which reads what
// notebooks/internal/capped ran apart.
package lab
