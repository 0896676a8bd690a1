package rewrite

import "testing"

var taglessCases = []passCase{
	{name: "several expressions", src: "switch { case x == 1, x == 3: f() }",
		want: "switch {\ncase (x == 1) || (x == 3):\n\tf()\n}"},
	{name: "operands get no parentheses of their own", src: "switch { case a, b.c, f(), 1: }",
		want: "switch {\ncase ((a || b.c) || f()) || 1:\n}"},
	{name: "three", src: "switch { case x < 0, x > 9, !ok: g() }",
		want: "switch {\ncase ((x < 0) || (x > 9)) || (!ok):\n\tg()\n}"},
	{name: "one expression stays", src: "switch { case x == 1: f() }",
		want: "switch {\ncase x == 1:\n\tf()\n}"},
	{name: "a tagged switch stays", src: "switch x { case 1, 3: f() }",
		want: "switch x {\ncase 1, 3:\n\tf()\n}"},
	{name: "nested in a function", decls: true, src: "func f(x int) bool { switch { case x == 1, x == 2: return true }; return false }",
		want: "func f(x int) bool {\n\tswitch {\n\tcase (x == 1) || (x == 2):\n\t\treturn true\n\t}\n\treturn false\n}"},
}

func TestTaglessCases(t *testing.T) { runTable(t, "tagless-cases", taglessCases) }
