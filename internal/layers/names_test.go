package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// qualified matches a name that docs/design.md gives with its package, in backquotes:
// `gpu.Variants`, `graph.Inf`, `gpu.AllPairs(ctx, name, g, opts)`, `*graph.NegativeCycleError`.
var qualified = regexp.MustCompile("`\\*?([a-z]+)\\.([A-Z][A-Za-z0-9]*)")

// declared returns the top-level names that the non-test files of the package in dir declare.
func declared(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
	}
	return names
}

// TestDesignNamesExist checks that every exported name docs/design.md gives with one of the
// project's packages (`gpu.Variants`, `graph.Inf`) is declared there, so that the document does
// not name what is gone. Names of other packages (`math.MaxInt32`) are left alone.
func TestDesignNamesExist(t *testing.T) {
	b, err := os.ReadFile(designDoc)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]map[string]bool{}
	checked := 0
	for _, m := range qualified.FindAllStringSubmatch(string(b), -1) {
		pkg, id := m[1], m[2]
		names, ok := pkgs[pkg]
		if !ok {
			if _, err := os.Stat(filepath.Join("../..", pkg)); err == nil {
				names = declared(t, filepath.Join("../..", pkg))
			}
			pkgs[pkg] = names
		}
		if names == nil {
			continue // not a package of this module
		}
		checked++
		if !names[id] {
			t.Errorf("docs/design.md names %s.%s, which package %s does not declare", pkg, id, pkg)
		}
	}
	if checked < 10 {
		t.Errorf("only %d qualified names found in docs/design.md", checked)
	}
}
