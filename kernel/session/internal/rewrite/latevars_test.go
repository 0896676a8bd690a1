package rewrite

import (
	"reflect"
	"testing"
)

// earlierA is a variable a of an earlier cell.
var earlierA = map[string]reflect.Value{"a": variable(1)}

var lateVarsCases = []passCase{
	{name: "a variable of an earlier cell", decls: true, globals: earlierA,
		src:  "var b = a + 1\nvar c = 2",
		want: "var c = 2\n// late\nvar b = a + 1"},
	{name: "late in the order they name each other, and what names them after", decls: true, globals: earlierA,
		src:  "var d = b * 2\nvar b = a + 1\nfunc f() int { return d }\nfunc g() int { return 1 }",
		want: "func g() int { return 1 }\n// late\nvar b = a + 1\nvar d = b * 2\n// then\nfunc f() int { return d }"},
	{name: "a spec of a group", decls: true, globals: earlierA,
		src:  "var (\n\tb = a\n\tc = 3\n)",
		want: "var (\n\tc = 3\n)\n// late\nvar b = a"},
	{name: "nothing earlier", decls: true,
		src: "var b = 1\nvar c = b", want: "var b = 1\nvar c = b"},
	{name: "a late initializer that calls what names it stays", decls: true, globals: earlierA,
		src:  "var b = a + f()\nfunc f() int { return b }",
		want: "var b = a + f()\n\nfunc f() int { return b }"},
	{name: "a constant of an earlier cell is no variable", decls: true,
		globals: map[string]reflect.Value{"k": reflect.ValueOf(3)},
		src:     "var b = k", want: "var b = k"},
}

func TestLateVars(t *testing.T) { runTable(t, "late-vars", lateVarsCases) }
