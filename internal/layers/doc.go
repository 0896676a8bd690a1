// Package layers holds the rule of which pathnotes package may import which, and the test that
// enforces it on the import lists `go list` reports, with and without the cuda build tag.
//
// graph is at the bottom; cpu and gpu stand on it (gpu/ptxemu and gpu/internal/... below gpu);
// display may use graph, cpu and gpu; lab may use those, display and internal/bench; bindings
// exposes the public packages to the interpreter. The kernel (kernel, kernel/session,
// kernel/notebook) imports no solver package: the program hands it the bindings' symbol
// tables. internal/cli, internal/magics and the root package wire the pieces together. The
// table in layers_test.go is the rule; docs/design.md describes it.
package layers
