package rewrite

import (
	"reflect"
	"testing"
)

var rangesCases = []passCase{
	{name: "over an integer", src: "for i := range 3 { f(i) }", want: `
{
	_pnN0 := 3
	for _pnI0 := _pnN0 - _pnN0; _pnI0 < _pnN0; _pnI0++ {
		i := _pnI0
		{
			f(i)
		}
	}
}`},
	{name: "over len, without a variable", src: "for range len(s) { f() }", want: `
{
	_pnN0 := len(s)
	for _pnI0 := _pnN0 - _pnN0; _pnI0 < _pnN0; _pnI0++ {
		{
			f()
		}
	}
}`},
	{name: "over an integer variable, labelled", globals: map[string]reflect.Value{"n": variable(4)},
		src: "outer: for i := range n { if i > 1 { break outer } }", want: `
{
	_pnN0 := n
outer:
	for _pnI0 := _pnN0 - _pnN0; _pnI0 < _pnN0; _pnI0++ {
		i := _pnI0
		{
			if i > 1 {
				break outer
			}
		}
	}
}`},
	{name: "over a function", src: "seq := func(yield func(int) bool) { yield(1) }\nfor x := range seq { if x > 0 { continue }; f(x) }", want: `
seq := func(yield func(int) bool) { yield(1) }
{
	seq(func(x int) bool {
		if x > 0 {
			return true
		}
		f(x)
		return true
	})
}`},
	{name: "a return from inside", decls: true,
		src: "func find(seq func(func(int, string) bool)) string { for k, v := range seq { if k == 2 { return v } }; return \"\" }", want: `
func find(seq func(func(int, string) bool)) string {
	{
		var _pnDone0 bool
		var _pnRet0 bool
		var _pnR0_0 string
		seq(func(k int, v string) bool {
			if _pnDone0 {
				panic("range function continued iteration after function for loop body returned false")
			}
			if k == 2 {
				{
					_pnR0_0 = v
					_pnRet0 = true
					_pnDone0 = true
					return false
				}
			}
			return true
		})
		if _pnRet0 {
			return _pnR0_0
		}
	}
	return ""
}`},
	{name: "a slice stays", src: "for i, x := range []int{1} { f(i, x) }", want: "for i, x := range []int{1} {\n\tf(i, x)\n}"},
	{name: "a defer inside", src: "seq := func(yield func(int) bool) {}\nfor x := range seq { defer f(x) }",
		wantErr: "cell:2:1: range over a function: its body has a defer"},
}

func TestRanges(t *testing.T) { runTable(t, "ranges", rangesCases) }
