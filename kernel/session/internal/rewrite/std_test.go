package rewrite

import (
	"reflect"
	"strings"
	"testing"
)

var stdCases = []passCase{
	{name: "without an import", src: "slices.Sort(xs); m := maps.Clone(m0); _ = m",
		want: "_pnslices_Sort(xs)\nm := _pnmaps_Clone(m0)\n_ = m", compiled: 1},
	{name: "imported under another name", src: "s.Sort(xs)", imports: map[string]string{"s": "slices"},
		want: "_pnslices_Sort(xs)", compiled: 1},
	{name: "cmp and iter in declarations", decls: true,
		src:  "func less[T cmp.Ordered](a, b T) bool { return cmp.Less(a, b) }\nfunc each(seq iter.Seq[int]) {}",
		want: "func less[T _pncmp_Ordered](a, b T) bool { return _pncmp_Less(a, b) }\nfunc each(seq _pniter_Seq[int])          {}", compiled: 1},
	{name: "a local variable shadows the package", src: "slices := []int{1}; _ = slices.X",
		want: "slices := []int{1}\n_ = slices.X"},
	{name: "a session variable shadows the package", src: "_ = maps.X",
		globals: map[string]reflect.Value{"maps": variable(3)}, want: "_ = maps.X"},
	{name: "an earlier declaration shadows the package", src: "_ = cmp.X",
		earlier: map[string]Decl{"cmp": {Kind: "type", Sig: "type cmp struct{ X int }"}}, want: "_ = cmp.X"},
	{name: "another package under the name", src: "_ = slices.Sort",
		imports: map[string]string{"slices": "example.com/slices"}, want: "_ = slices.Sort"},
	{name: "a name the session's package lacks", src: "slices.Frobnicate(xs)",
		wantErr: "cell:1:35: undefined: slices.Frobnicate (the session's package slices has All, AppendSeq"},
	{name: "nothing standard", src: "fmt.Println(1)", want: "fmt.Println(1)"},
}

func TestStdGenerics(t *testing.T) { runTable(t, "std-generics", stdCases) }

// TestStdNames checks that messages name the functions as cells do.
func TestStdNames(t *testing.T) {
	got := StdNames("cell:2:3: cannot use _pnslices_Sort (value of type func) in _pnmaps_Keys")
	if want := "cell:2:3: cannot use slices.Sort (value of type func) in maps.Keys"; got != want {
		t.Errorf("StdNames: %q, want %q", got, want)
	}
	for _, p := range []string{"slices", "maps", "cmp", "iter"} {
		if !StdPackage(p) || !strings.Contains(stdSources, "_pn"+p+"_") {
			t.Errorf("%s: not a standard package of the session, or no source", p)
		}
	}
	if StdPackage("sort") {
		t.Error("sort is yaegi's own")
	}
}
