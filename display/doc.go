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
// Views are built with chained calls (display.Graph(g).Path(p)) and never
// panic: a bad argument is remembered, shown in place of the view, and
// returned by the view's Err method and by Show.
//
// The kernel never imports this package. The program that starts the kernel
// connects the two with SetPublisher; without a publisher, Show and Update
// print the text/plain form to standard output.
package display
