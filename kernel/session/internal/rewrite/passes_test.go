package rewrite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"testing"
)

// tables are the test tables of the passes that rewrite, by name: every
// such pass of the registry has one.
var tables = map[string][]passCase{
	"tagless-cases":    taglessCases,
	"std-generics":     stdCases,
	"type-args":        typeArgsCases,
	"generic-results":  genericResultsCases,
	"ranges":           rangesCases,
	"late-vars":        lateVarsCases,
	"compound-defines": compoundCases,
	"min-max":          minMaxCases,
}

// TestRegistry checks that every pass has a unique name, says which gap it
// closes, rewrites or hints, and has a test table when it rewrites.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Passes() {
		if p.Name == "" || seen[p.Name] {
			t.Errorf("pass %q: no name, or a name twice", p.Name)
		}
		seen[p.Name] = true
		if p.Gap == "" || (p.Run == nil && p.Hint == nil) {
			t.Errorf("%s: no gap, or neither a rewrite nor a hint", p.Name)
		}
		if cases := tables[p.Name]; (p.Run != nil) != (len(cases) > 0) {
			t.Errorf("%s: rewrites %v, but has %d test cases", p.Name, p.Run != nil, len(cases))
		}
	}
	for name := range tables {
		if !seen[name] {
			t.Errorf("table %s: no such pass", name)
		}
	}
}

// TestHint checks the hints of the gaps for the interpreter's messages.
func TestHint(t *testing.T) {
	for msg, want := range map[string]string{
		"cell:1:5: undefined: clear":                 "delete(m, k)",
		"cell:2:1: nil type":                         "cannot range over an integer or a function",
		"cell:1:1: undefined selector: maps.Frob":    "lacks most generic functions",
		"cell:1:1: undefined: x":                     "",
		"cell:1:1: x redeclared in this block (...)": "",
	} {
		if got := Hint(msg); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("Hint(%q) = %q, want one with %q", msg, got, want)
		}
	}
}

// TestStages runs each stage of a rewriter on one piece: the passes of the
// stage run, in the registry's order, and no others.
func TestStages(t *testing.T) {
	env := &fakeEnv{fset: token.NewFileSet(), imports: map[string]string{}, globals: map[string]reflect.Value{"a": variable(1)}}
	r := New(env)
	src := "package main; func main() {switch { case x == 1, x == 2: }\nfor i := range 2 { slices.Sort(s[i:]) }\nm := max(i, 2.5)\n}"
	f, err := parser.ParseFile(env.fset, "cell", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	top := f.Decls[0].(*ast.FuncDecl).Body
	p := &Piece{File: f, Top: top}
	if err := r.Run(Parsed, p); err != nil {
		t.Fatal(err)
	}
	got := printPiece(t, env.fset, p)
	for _, want := range []string{"case (x == 1) || (x == 2):", "_pnslices_Sort(s[i:])", "for _pnI0 := _pnN0 - _pnN0", "m := max(i, 2.5)"} {
		if !strings.Contains(got, want) {
			t.Errorf("after Parsed: no %q in\n%s", want, got)
		}
	}
	if len(env.compiled) != 1 {
		t.Errorf("the standard functions compiled %d times, want once", len(env.compiled))
	}
	if err := r.Run(Compile, &Piece{Node: top, Top: top}); err != nil {
		t.Fatal(err)
	}
	got = printPiece(t, env.fset, p)
	if !strings.Contains(got, "m := i\nm = max(m, float64(2.5))") {
		t.Errorf("after Compile: min-max did not run:\n%s", got)
	}
	// A second piece needs no second compilation; Reset forgets it.
	f2, _ := parser.ParseFile(env.fset, "cell", "package main; var v = slices.Max(s)", parser.SkipObjectResolution)
	if err := r.Run(Parsed, &Piece{File: f2}); err != nil || len(env.compiled) != 1 {
		t.Errorf("second piece: %v, compiled %d times", err, len(env.compiled))
	}
	r.Reset()
	f3, _ := parser.ParseFile(env.fset, "cell", "package main; var v = slices.Max(s)", parser.SkipObjectResolution)
	if err := r.Run(Parsed, &Piece{File: f3}); err != nil || len(env.compiled) != 2 {
		t.Errorf("after Reset: %v, compiled %d times", err, len(env.compiled))
	}
}
