package bindings

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// TestFresh regenerates the tables into a temporary directory and fails
// when a committed file differs, is missing, or is left over.
func TestFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerating the bindings takes a few seconds")
	}
	tmp := t.TempDir()
	cmd := exec.Command("go", "run", "./internal/genbindings", "-out", tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("genbindings: %v\n%s", err, out)
	}
	generated, _ := filepath.Glob(filepath.Join(tmp, "*.go"))
	committed, _ := filepath.Glob("*.go")
	var want []string
	for _, f := range generated {
		name := filepath.Base(f)
		want = append(want, name)
		got, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("%s is not committed: run go generate ./bindings", name)
			continue
		}
		fresh, _ := os.ReadFile(f)
		if !bytes.Equal(got, fresh) {
			t.Errorf("%s is stale: run go generate ./bindings", name)
		}
	}
	for _, f := range committed {
		if f == "bindings.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		if !slices.Contains(want, f) {
			t.Errorf("%s is no longer generated: delete it", f)
		}
	}
}

// TestCellsSeePackages runs Go through yaegi with the tables loaded.
func TestCellsSeePackages(t *testing.T) {
	i := interp.New(interp.Options{})
	if err := i.Use(stdlib.Symbols); err != nil {
		t.Fatal(err)
	}
	if err := i.Use(Symbols); err != nil {
		t.Fatal(err)
	}
	_, err := i.Eval(`import "github.com/pathnotes/pathnotes/graph"`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval(`g, err := graph.Parse("a->b 5, b->c 2")`); err != nil {
		t.Fatal(err)
	}
	v, err := i.Eval(`g.N()*10 + g.M()`)
	if err != nil {
		t.Fatal(err)
	}
	if v.Int() != 32 {
		t.Fatalf("cell computed %v, want 32", v)
	}
}

func TestDoc(t *testing.T) {
	d, ok := Doc("github.com/pathnotes/pathnotes/graph", "Graph.N")
	if !ok || !strings.Contains(d, "func (g *Graph) N() int") || !strings.Contains(d, "number of vertices") {
		t.Fatalf("Doc(Graph.N) = %q, %v", d, ok)
	}
	if _, ok := Doc("github.com/pathnotes/pathnotes/graph", "NoSuchThing"); ok {
		t.Fatal("Doc found a name that does not exist")
	}
}
