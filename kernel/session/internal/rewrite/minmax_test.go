package rewrite

import "testing"

var minMaxCases = []passCase{
	{name: "a typed argument first", src: "m := min(1, 2, x); _ = m", want: "m := x\nm = min(m, 1, 2)\n_ = m"},
	{name: "float literals", src: "f(max(x, 2.5))", want: "f(max(x, float64(2.5)))"},
	{name: "all literals, one float", src: "f(max(1, 2.5, -3))", want: "f(max(float64(1), float64(2.5), float64(-3)))"},
	{name: "all integer literals stay", src: "f(min(3, 1))", want: "f(min(3, 1))"},
	{name: "a definition of one argument", src: "m := max(x)", want: "m := x"},
	{name: "in a function only typed", decls: true, src: "func g(x float64) float64 { m := max(x, 1.5); return m }",
		want: "func g(x float64) float64 { m := max(x, float64(1.5)); return m }"},
	{name: "a spread argument stays", src: "m := max(xs...)", want: "m := max(xs...)"},
	{name: "other calls stay", src: "m := maxOf(1, 2.5)", want: "m := maxOf(1, 2.5)"},
}

func TestMinMax(t *testing.T) { runTable(t, "min-max", minMaxCases) }
