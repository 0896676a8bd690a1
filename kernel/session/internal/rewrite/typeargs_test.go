package rewrite

import (
	"reflect"
	"testing"
)

// mapDecl is a generic function of an earlier cell.
var mapDecl = map[string]Decl{
	"Map": {Kind: "func", Sig: "func Map[T, U any](xs []T, f func(T) U) []U", Full: "func Map[T, U any](xs []T, f func(T) U) []U { return nil }"},
	"Sum": {Kind: "func", Sig: "func Sum[T int | float64](xs ...T) T", Full: "func Sum[T int | float64](xs ...T) T { return 0 }"},
}

var typeArgsCases = []passCase{
	{name: "inferred from a later argument", earlier: mapDecl,
		src:     "ys := Map([]int{1}, func(x int) string { return strconv.Itoa(x) })",
		want:    "ys := Map[int, string]([]int{1}, func(x int) string { return strconv.Itoa(x) })",
		imports: map[string]string{"strconv": "strconv"}},
	{name: "untyped constants take their default type", earlier: mapDecl,
		src: "s := Sum(1.5, 2)", want: "s := Sum[float64](1.5, 2)"},
	{name: "from a session variable", earlier: mapDecl, globals: map[string]reflect.Value{"xs": variable([]int{1})},
		src: "t := Sum(xs...)", want: "t := Sum[int](xs...)"},
	{name: "declared in the piece", decls: true,
		src:  "func first[T any](xs []T) T { return xs[0] }\nvar f = first([]string{\"a\"})",
		want: "func first[T any](xs []T) T { return xs[0] }\n\nvar f = first[string]([]string{\"a\"})"},
	{name: "written out already", earlier: mapDecl, src: "s := Sum[int](1, 2)", want: "s := Sum[int](1, 2)"},
	{name: "no generic call", src: "n := len(\"ab\")", want: "n := len(\"ab\")"},
	{name: "a type the cell cannot write is left to the interpreter", earlier: mapDecl,
		src:  "ys := Map([]int{1}, func(x int) struct{ a unknown } { return struct{ a unknown }{} })",
		want: "ys := Map([]int{1}, func(x int) struct{ a unknown } { return struct{ a unknown }{} })"},
}

func TestTypeArgs(t *testing.T) { runTable(t, "type-args", typeArgsCases) }

var genericResultsCases = []passCase{
	{name: "a new variable is declared, then assigned", earlier: mapDecl,
		src:  "ys := Map([]int{1}, func(x int) string { return \"\" })",
		want: "var ys []string\nys = Map([]int{1}, func(x int) string { return \"\" })"},
	{name: "an existing variable keeps the :=, converted", earlier: mapDecl,
		globals: map[string]reflect.Value{"s": variable(0.0)},
		src:     "s := Sum(1.5, 2)", want: "s := (float64)(Sum(1.5, 2))"},
	{name: "a var declaration is converted", decls: true, earlier: mapDecl,
		src: "var s = Sum(1, 2)", want: "var s = (int)(Sum(1, 2))"},
	{name: "in a function only converted", earlier: mapDecl,
		src:  "f := func() { s := Sum(1, 2); _ = s }",
		want: "f := func() { s := (int)(Sum(1, 2)); _ = s }"},
	{name: "several results are left alone", decls: true,
		src:  "func two[T any](x T) (T, T) { return x, x }\nvar a, b = two(1)",
		want: "func two[T any](x T) (T, T) { return x, x }\n\nvar a, b = two(1)"},
}

func TestGenericResults(t *testing.T) { runTable(t, "generic-results", genericResultsCases) }
