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

import (
	"reflect"

	"github.com/pathnotes/pathnotes/gpu/cells"
)

//go:generate go run ./internal/genbindings -out .

// Prelude lists the packages every cell may use without an import line
// (an explicit import still works).
var Prelude = []string{
	"fmt",
	"github.com/pathnotes/pathnotes/graph",
	"github.com/pathnotes/pathnotes/cpu",
	"github.com/pathnotes/pathnotes/gpu",
	"github.com/pathnotes/pathnotes/gpu/cells",
	"github.com/pathnotes/pathnotes/display",
	"github.com/pathnotes/pathnotes/lab",
}

// Symbols maps "importpath/name" to the exported symbols of that package, in
// the form yaegi's interp.Use expects.
var Symbols = map[string]map[string]reflect.Value{}

// cellsPath is the import path of package cells.
const cellsPath = "github.com/pathnotes/pathnotes/gpu/cells"

// Cells returns the symbol table that binds package cells to k, the
// kernels of one session: every method of k is a function of the package
// there, so that a cell's cells.Launch("vecAdd", ...) is k.Launch and its
// %%cuda and %%ptx cells' modules are k's. Load it after Symbols.
func Cells(k *cells.Session) map[string]map[string]reflect.Value {
	v := reflect.ValueOf(k)
	syms := make(map[string]reflect.Value, v.NumMethod())
	for i := range v.NumMethod() {
		syms[v.Type().Method(i).Name] = v.Method(i)
	}
	return map[string]map[string]reflect.Value{cellsPath + "/cells": syms}
}

// Doc returns the declaration and doc comment of an exported name of a bound
// package, for example Doc("github.com/pathnotes/pathnotes/graph", "GNM") or
// Doc(path, "Graph.N") for a method. A function of package cells that a
// session binds (Cells) has the doc of its Session method.
func Doc(importPath, name string) (string, bool) {
	d, ok := docs[importPath+"."+name]
	if !ok && importPath == cellsPath {
		d, ok = docs[importPath+".Session."+name]
	}
	return d, ok
}
