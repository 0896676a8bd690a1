// Package display turns pathnotes values into rich Jupyter output: MIME
// bundles of HTML, SVG, PNG, Markdown and plain text for distance and
// predecessor matrices, graph drawings, algorithm traces, benchmark tables,
// plots and progress bars.
//
// Every view implements Renderer, the structural interface the kernel looks
// for on a cell's trailing value, so ending a cell with
//
//	display.DistMatrix(r)
//
// shows the matrix. Show displays a value in the middle of a cell, New
// returns a Handle whose output can be replaced later, and NewProgress gives
// a bar that updates in place.
//
// Every bundle carries a "text/plain" form that reads well on its own, so
// jupyter console, headless notebook runs and plain Go programs stay useful.
//
// Traces step through an algorithm: FWTrace (one step per k, or per phase
// of a blocked run), DijkstraTrace (one per settled vertex) and BFTrace
// (one per Bellman-Ford pass) show as one self-contained HTML output with a
// slider and previous/next buttons. Each step shows what it changed: the
// cells of D and Π (highlighted) and the pivot row and column k for
// Floyd-Warshall, the settled vertex and the distances its relaxed arcs
// lowered for Dijkstra, the scanned vertices and relaxed arcs for
// Bellman-Ford. A small inline script drives the controls, with nothing
// fetched and no call to the kernel, so the view works in a saved notebook
// and in nbconvert's HTML; every output has its own element ids, so several
// traces in one notebook do not interfere. Where scripts do not run (an
// untrusted notebook) every step shows, in order. Long traces show their
// first three steps and their last, and say so; the text form lists the
// steps as tables.
//
// BlockedFW draws the schematic of one round of blocked Floyd-Warshall:
// the pivot tile (phase 1), the pivot row and column tiles (phase 2) and
// the rest (phase 3), one phase at a time or all together, optionally with
// the thread blocks of a kernel launch over the cells, the launch grid's
// block on each tile (Blocks), the tiles one block keeps in shared memory
// (Shared) or the persistent blocks of a two-kernel version (Persistent).
// CSR draws a small graph's compact adjacency list, the arrays the GPU
// kernels read, and RowReads the threads of a one-thread-a-cell round and
// the value each row of them shares.
//
// Plots (NewPlot) share one style: a series name has one colour and marker
// for the whole session, a document's values (Documented) are dashed in the
// colour of the series they belong to, a fitted curve (Fit) is drawn as the
// curve it is, and the legend names each series once. Every axis is
// labelled: log axes at every decade they span, an x axis at the sizes
// measured when they are few, linear axes at round steps; an axis whose
// values span more than two decades turns logarithmic unless the caller
// fixed its scale, titles wrap, and the legend goes where it hides no
// data. Graph drawings wrap their titles and place weights off crossings.
//
// Views are built with chained calls (display.Graph(g).Path(p)) and never
// panic: a bad argument is remembered, shown in place of the view, and
// returned by the view's Err method and by Show.
//
// The kernel never imports this package. The program that starts the kernel
// connects the two with SetPublisher; without a publisher, Show and Update
// print the text/plain form to standard output.
package display
