package rewrite

import "testing"

var compoundCases = []passCase{
	{name: "if with v, err :=", src: "if v, err := f(); err != nil { g(v) }",
		want: "func() {\n\tif v, err := f(); err != nil {\n\t\tg(v)\n\t}\n}()"},
	{name: "a block", src: "{ a, b := f(); g(a, b) }",
		want: "func() {\n\t{\n\t\ta, b := f()\n\t\tg(a, b)\n\t}\n}()"},
	{name: "a return inside stays", src: "for { v, err := f(); if err != nil { return }; g(v) }",
		want: "for {\n\tv, err := f()\n\tif err != nil {\n\t\treturn\n\t}\n\tg(v)\n}"},
	{name: "a labelled branch stays", src: "L: for { v, ok := f(); if ok { break L }; g(v) }",
		want: "L:\nfor {\n\tv, ok := f()\n\tif ok {\n\t\tbreak L\n\t}\n\tg(v)\n}"},
	{name: "one variable stays", src: "if v := f(); v { g() }", want: "if v := f(); v {\n\tg()\n}"},
	{name: "not top-level: only the cell's statements", decls: true,
		src: "func h() { if v, err := f(); err != nil { g(v) } }", want: "func h() {\n\tif v, err := f(); err != nil {\n\t\tg(v)\n\t}\n}"},
	{name: "a := at the top stays", src: "v, err := f(); g(v, err)", want: "v, err := f()\ng(v, err)"},
}

func TestCompoundDefines(t *testing.T) { runTable(t, "compound-defines", compoundCases) }
