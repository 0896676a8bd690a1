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

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
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

// TestCellsSession checks that Cells makes the methods of one session's
// cells.Session the functions of package cells: a Go cell reaches the
// modules that session loaded and no other session's, Doc gives the
// methods' comments, and no method hides a name the package declares.
func TestCellsSession(t *testing.T) {
	t.Setenv(gpu.EnvDriver, "emu")
	ptx, err := os.ReadFile("../gpu/cells/testdata/celltest.ptx")
	if err != nil {
		t.Fatal(err)
	}
	mine, other := new(cells.Session), new(cells.Session)
	if _, err := mine.Load("mine", string(ptx)); err != nil {
		t.Fatal(err)
	}
	table := Cells(mine)[cellsPath+"/cells"]
	for name := range table {
		if _, clash := Symbols[cellsPath+"/cells"][name]; clash {
			t.Errorf("cells.Session.%s hides the package's own %s", name, name)
		}
		if d, ok := Doc(cellsPath, name); !ok || !strings.Contains(d, "func (s *Session) "+name) {
			t.Errorf("Doc(cells, %s) = %q, %v", name, d, ok)
		}
	}
	for _, c := range []struct {
		k    *cells.Session
		want string
	}{{mine, "module mine on PTX emulator"}, {other, "cell modules: none"}} {
		i := interp.New(interp.Options{})
		for _, s := range []interp.Exports{stdlib.Symbols, Symbols, Cells(c.k)} {
			if err := i.Use(s); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := i.Eval(`import "github.com/pathnotes/pathnotes/gpu/cells"`); err != nil {
			t.Fatal(err)
		}
		v, err := i.Eval(`cells.Describe()`)
		if err != nil || !strings.Contains(v.String(), c.want) {
			t.Errorf("cells.Describe() = %v, %v; want %q", v, err, c.want)
		}
		if _, err := i.Eval(`_, kerr := cells.GetKernel("vecAdd")`); err != nil {
			t.Fatal(err)
		}
		found, err := i.Eval(`kerr == nil`)
		if err != nil || found.Bool() != (c.k == mine) {
			t.Errorf("cells.GetKernel(vecAdd) found it: %v (%v) in the session of %q", found, err, c.want)
		}
	}
}
