// Package bindings holds the yaegi symbol tables through which notebook
// cells reach pathnotes' own packages and the useful parts of gonum, and the
// doc comments the kernel shows for them.
//
// The tables are generated and committed; regenerate them after changing an
// exported API with
//
//	go generate ./bindings
//
// A test fails when the committed tables are stale.
package bindings

import "reflect"

//go:generate go run ./internal/genbindings -out .

// Prelude lists the packages every cell may use without an import line
// (an explicit import still works).
var Prelude = []string{
	"fmt",
	"github.com/pathnotes/pathnotes/graph",
	"github.com/pathnotes/pathnotes/cpu",
	"github.com/pathnotes/pathnotes/gpu",
	"github.com/pathnotes/pathnotes/display",
	"github.com/pathnotes/pathnotes/lab",
}

// Symbols maps "importpath/name" to the exported symbols of that package, in
// the form yaegi's interp.Use expects.
var Symbols = map[string]map[string]reflect.Value{}

// Doc returns the declaration and doc comment of an exported name of a bound
// package, for example Doc("github.com/pathnotes/pathnotes/graph", "GNM") or
// Doc(path, "Graph.N") for a method.
func Doc(importPath, name string) (string, bool) {
	d, ok := docs[importPath+"."+name]
	return d, ok
}
