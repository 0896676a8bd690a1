package gpu

import (
	flagpkg "flag"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// update rewrites the variant tables of this package's doc and of
// docs/design.md from the registry: go test ./gpu -run TestVariantTables -update.
var update = flagpkg.Bool("update", false, "rewrite the variant tables of doc.go and docs/design.md from the registry")

// funcName returns the name of the function a variant's entry runs.
func funcName(v Variant) string {
	var f any = v.all
	if v.all == nil {
		f = v.single
	}
	name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
	return name[strings.LastIndex(name, ".")+1:]
}

// docTable is the table of doc.go: function, name and summary, aligned, a
// line each, as lines of a doc comment's code block.
func docTable() []string {
	var fw, nw int
	for _, v := range Variants() {
		fw, nw = max(fw, len(funcName(v))), max(nw, len(v.Name))
	}
	var lines []string
	for _, v := range Variants() {
		lines = append(lines, strings.TrimRight(fmt.Sprintf("//\t%-*s  %-*s  %s", fw, funcName(v), nw, v.Name, strings.ReplaceAll(v.summary, "`", "")), " "))
	}
	return lines
}

// designTable is the table of docs/design.md: name, summary, from.
func designTable() []string {
	lines := []string{"| name | algorithm | from |", "|---|---|---|"}
	for _, v := range Variants() {
		lines = append(lines, fmt.Sprintf("| `%s` | %s | %s |", v.Name, v.summary, v.from))
	}
	return lines
}

// replaceBlock replaces, in the lines of text, the block of consecutive
// lines that starts at the first line for which start holds and goes on
// while in holds, by block.
func replaceBlock(text string, start, in func(string) bool, block []string) (string, error) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !start(l) {
			continue
		}
		j := i
		for j < len(lines) && in(lines[j]) {
			j++
		}
		return strings.Join(append(append(lines[:i:i], block...), lines[j:]...), "\n"), nil
	}
	return "", fmt.Errorf("no table found")
}

// TestVariantTables checks that the variant tables of doc.go and of
// docs/design.md are those the registry gives, or with -update writes
// them.
func TestVariantTables(t *testing.T) {
	for _, c := range []struct {
		path      string
		start, in func(string) bool
		table     []string
	}{
		{"doc.go", func(l string) bool { return strings.HasPrefix(l, "//\tFWHN ") },
			func(l string) bool { return strings.HasPrefix(l, "//\t") }, docTable()},
		{"../docs/design.md", func(l string) bool { return l == "| name | algorithm | from |" },
			func(l string) bool { return strings.HasPrefix(l, "|") }, designTable()},
	} {
		b, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := replaceBlock(string(b), c.start, c.in, c.table)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		switch {
		case got == string(b):
		case *update:
			if err := os.WriteFile(c.path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		default:
			t.Errorf("%s: the variants table is not the registry's; run go test ./gpu -run TestVariantTables -update. Want:\n%s",
				c.path, strings.Join(c.table, "\n"))
		}
	}
}
