package rewrite

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"reflect"
	"strings"
	"testing"
)

// fakeEnv is a session as the passes see it, with what a test gives it.
type fakeEnv struct {
	fset     *token.FileSet
	imports  map[string]string
	decls    map[string]Decl
	globals  map[string]reflect.Value
	compiled []string // what CompileDecls was given
}

func (e *fakeEnv) FileSet() *token.FileSet           { return e.fset }
func (e *fakeEnv) Imports() map[string]string        { return e.imports }
func (e *fakeEnv) Globals() map[string]reflect.Value { return e.globals }
func (e *fakeEnv) CompileDecls(src string) error {
	e.compiled = append(e.compiled, src)
	return nil
}

func (e *fakeEnv) Decl(name string) (Decl, bool) {
	d, ok := e.decls[name]
	return d, ok
}

func (e *fakeEnv) Decls(f func(string, Decl)) {
	for name, d := range e.decls {
		f(name, d)
	}
}

// Package knows the standard library's strconv only, with Itoa.
func (e *fakeEnv) Package(path string) (string, map[string]reflect.Value, bool) {
	if path != "strconv" {
		return "", nil, false
	}
	return "strconv", map[string]reflect.Value{"Itoa": reflect.ValueOf(func(int) string { return "" })}, true
}

// variable returns an addressable value, as the session's globals are.
func variable[T any](v T) reflect.Value { return reflect.ValueOf(&v).Elem() }

// passCase is one row of a pass's test table: a piece of a cell before the
// pass and after it.
type passCase struct {
	name    string
	decls   bool   // the piece is declarations, not top-level statements
	src     string // the piece
	want    string // the piece after the pass, gofmt'ed; "" when wantErr is set
	wantErr string // a part of the pass's error
	// Of the session: imports (name → path), earlier declarations and
	// variables.
	imports map[string]string
	earlier map[string]Decl
	globals map[string]reflect.Value
	// compiled is how many times the pass should compile declarations in
	// the session.
	compiled int
}

// pass returns the registered pass called name.
func pass(t *testing.T, name string) Pass {
	t.Helper()
	for _, p := range Passes() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no pass %q in the registry", name)
	return Pass{}
}

// runTable runs the pass called name on every case of its table.
func runTable(t *testing.T, name string, cases []passCase) {
	ps := pass(t, name)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := &fakeEnv{fset: token.NewFileSet(), imports: c.imports, decls: c.earlier, globals: c.globals}
			if env.imports == nil {
				env.imports = map[string]string{}
			}
			p := &Piece{}
			var err error
			if c.decls {
				p.File, err = parser.ParseFile(env.fset, "cell", "package main;"+c.src+"\n", parser.SkipObjectResolution)
			} else {
				p.File, err = parser.ParseFile(env.fset, "cell", "package main; func main() {"+c.src+"\n}", parser.SkipObjectResolution)
				if err == nil {
					p.Top = p.File.Decls[0].(*ast.FuncDecl).Body
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			p.r = New(env)
			err = ps.Run(p)
			switch {
			case c.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one with %q", err, c.wantErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if got := printPiece(t, env.fset, p); got != strings.TrimSpace(c.want) {
				t.Errorf("got\n%s\nwant\n%s", got, strings.TrimSpace(c.want))
			}
			if len(env.compiled) != c.compiled {
				t.Errorf("compiled declarations %d times, want %d", len(env.compiled), c.compiled)
			}
		})
	}
}

// printPiece prints the piece gofmt'ed: the statements of top-level code
// without main around them, or the declarations; then the Late and Then
// declarations of the late-vars pass, each after a comment line.
func printPiece(t *testing.T, fset *token.FileSet, p *Piece) string {
	t.Helper()
	var nodes []any
	if p.Top != nil {
		for _, st := range p.Top.List {
			nodes = append(nodes, st)
		}
	} else {
		for _, d := range p.File.Decls {
			nodes = append(nodes, d)
		}
	}
	var out []string
	out = append(out, gofmt(t, fset, nodes, p.Top != nil))
	if len(p.Late) > 0 {
		var late []any
		for _, g := range p.Late {
			late = append(late, g)
		}
		out = append(out, "// late", gofmt(t, fset, late, false))
	}
	if len(p.Then) > 0 {
		var then []any
		for _, d := range p.Then {
			then = append(then, d)
		}
		out = append(out, "// then", gofmt(t, fset, then, false))
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// gofmt prints nodes, one a line, and formats them as gofmt would, inside
// a function when stmts is true.
func gofmt(t *testing.T, fset *token.FileSet, nodes []any, stmts bool) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("package main\n")
	if stmts {
		b.WriteString("func main() {\n")
	}
	for _, n := range nodes {
		if err := printer.Fprint(&b, fset, n); err != nil {
			t.Fatal(err)
		}
		b.WriteString("\n")
	}
	if stmts {
		b.WriteString("}\n")
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatalf("%v in\n%s", err, b.String())
	}
	text := strings.TrimPrefix(string(src), "package main\n")
	if stmts {
		text = strings.TrimSpace(text)
		text = strings.TrimSuffix(strings.TrimPrefix(text, "func main() {"), "}")
		var lines []string
		for _, l := range strings.Split(strings.Trim(text, "\n"), "\n") {
			lines = append(lines, strings.TrimPrefix(l, "\t"))
		}
		text = strings.Join(lines, "\n")
	}
	return strings.TrimSpace(text)
}
