package session

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// userDecl is a top-level declaration made by a cell, kept for inspection,
// completion and %who.
type userDecl struct {
	kind string // "func", "method", "type", "var" or "const"
	sig  string // the declaration without a function's body, with its doc comment
	full string // the whole declaration, with its doc comment
	typ  string // the written type of a var or const, if any
}

// noteDecls records the declarations of a compiled file; full is the file's
// source and base the position of its first byte.
func (s *Session) noteDecls(f *ast.File, full string, base int) {
	text := func(from, to token.Pos) string { return full[int(from)-base : int(to)-base] }
	withDoc := func(g *ast.CommentGroup, src string) string {
		if g == nil {
			return src
		}
		return text(g.Pos(), g.End()) + "\n" + src
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name, kind := d.Name.Name, "func"
			if d.Recv != nil {
				name, kind = recvTypeName(d.Recv)+"."+name, "method"
			}
			if strings.HasPrefix(name, "_pn") {
				continue
			}
			s.decls[name] = &userDecl{kind: kind,
				sig:  withDoc(d.Doc, text(d.Pos(), d.Type.End())),
				full: withDoc(d.Doc, text(d.Pos(), d.End())),
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				docs := d.Doc
				switch sp := spec.(type) {
				case *ast.TypeSpec:
					if sp.Doc != nil {
						docs = sp.Doc
					}
					src := withDoc(docs, "type "+text(sp.Pos(), sp.End()))
					s.decls[sp.Name.Name] = &userDecl{kind: "type", sig: src, full: src}
				case *ast.ValueSpec:
					if sp.Doc != nil {
						docs = sp.Doc
					}
					src := withDoc(docs, d.Tok.String()+" "+text(sp.Pos(), sp.End()))
					typ := ""
					if sp.Type != nil {
						typ = text(sp.Type.Pos(), sp.Type.End())
					}
					for _, n := range sp.Names {
						if n.Name != "_" {
							s.decls[n.Name] = &userDecl{kind: d.Tok.String(), sig: src, full: src, typ: typ}
						}
					}
				}
			}
		}
	}
}

// Inspect describes the identifier at cursor (a position in Unicode code
// points): its signature and doc comment, or for a variable its type and
// value. With detailLevel above 0, a function declared by a cell shows its
// whole source. It reports false when there is nothing to describe.
func (s *Session) Inspect(code string, cursor, detailLevel int) (*Bundle, bool) {
	off := byteOffset(code, cursor)
	end := off
	for end < len(code) {
		r, n := utf8.DecodeRuneInString(code[end:])
		if !isIdentRune(r) {
			break
		}
		end += n
	}
	// Inspecting "f(|" describes f: step back over one opening parenthesis.
	if end == off && off > 0 && code[off-1] == '(' {
		off--
		end = off
	}
	chain := selectorChain(code[:end])
	if len(chain) == 0 {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	text := s.describe(chain, detailLevel)
	if text == "" {
		return nil, false
	}
	return TextBundle(text), true
}

// describe returns the text Inspect shows for a selector chain (x, or
// pkg.Name, or v.Method).
func (s *Session) describe(chain []string, detail int) string {
	last := chain[len(chain)-1]
	if len(chain) == 1 {
		if d := s.decls[last]; d != nil {
			if detail > 0 {
				return d.full
			}
			if d.kind == "var" {
				return d.sig + "\n\nvalue: " + s.globalValue(last)
			}
			return d.sig
		}
		if v, ok := s.globals()[last]; ok {
			return fmt.Sprintf("var %s %s\n\nvalue: %s", last, s.typeName(last, v), s.globalValue(last))
		}
		if p, ok := s.imports[last]; ok {
			return s.packageDoc(p)
		}
		if h, ok := builtinDocs[last]; ok {
			return h
		}
		return ""
	}
	recv := chain[len(chain)-2]
	if p, ok := s.imports[recv]; ok && len(chain) == 2 {
		return s.memberDoc(p, last)
	}
	if len(chain) == 2 {
		if v, ok := s.globals()[recv]; ok {
			return s.methodDoc(recv, v, last)
		}
		if d := s.decls[recv+"."+last]; d != nil { // T.Method
			return d.sig
		}
	}
	return ""
}

// globalValue is the text form of a session variable, kept short.
func (s *Session) globalValue(name string) string {
	v, ok := s.globals()[name]
	if !ok || !v.IsValid() || !v.CanInterface() {
		return "?"
	}
	t := formatValues([]any{v.Interface()})
	if len(t) > 500 {
		t = t[:500] + "…"
	}
	return t
}

// methodDoc describes field or method name of the value of variable recv.
func (s *Session) methodDoc(recv string, v reflect.Value, name string) string {
	if d := s.decls[recv]; d != nil && d.typ != "" {
		if m := s.decls[strings.TrimPrefix(d.typ, "*")+"."+name]; m != nil {
			return m.sig
		}
	}
	if !v.IsValid() {
		return ""
	}
	t := dynamicType(v)
	base := t
	if base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if m, ok := t.MethodByName(name); ok {
		if base.PkgPath() != "" {
			if d := s.docOf(base.PkgPath(), base.Name()+"."+name); d != "" {
				return d
			}
		}
		return fmt.Sprintf("func (%s) %s%s", t, name, strings.TrimPrefix(m.Type.String(), "func"))
	}
	if base.Kind() == reflect.Struct {
		if f, ok := base.FieldByName(name); ok {
			return fmt.Sprintf("field %s %s (of %s)", name, f.Type, t)
		}
	}
	return ""
}

// memberDoc describes the exported name of the package at importPath.
func (s *Session) memberDoc(importPath, name string) string {
	if d := s.docOf(importPath, name); d != "" {
		return d
	}
	info := s.pkgs[importPath]
	if info == nil {
		return ""
	}
	v, ok := info.syms[name]
	if !ok {
		return ""
	}
	return reflectDecl(info.name, name, v)
}

// packageDoc describes a package: its synopsis, when the sources are here.
func (s *Session) packageDoc(importPath string) string {
	text := fmt.Sprintf("package %s // import %q", s.pkgName(importPath), importPath)
	if d := s.sourceDocs(importPath); d != nil && d.synopsis != "" {
		text += "\n\n" + d.synopsis
	}
	return text
}

func (s *Session) pkgName(importPath string) string {
	if info := s.pkgs[importPath]; info != nil {
		return info.name
	}
	if p := s.local.get(importPath); p != nil {
		return p.name
	}
	return filepath.Base(importPath)
}

// docOf returns the declaration and doc comment of name ("F", "T" or
// "T.M") in the package at importPath: from Options.Doc, then from the Go
// sources of the standard library.
func (s *Session) docOf(importPath, name string) string {
	if s.opts.Doc != nil {
		if d, ok := s.opts.Doc(importPath, name); ok {
			return d
		}
	}
	if d := s.sourceDocs(importPath); d != nil {
		return d.names[name]
	}
	return ""
}

// reflectDecl describes an exported symbol from its reflect value, for
// packages whose sources are not here.
func reflectDecl(pkg, name string, v reflect.Value) string {
	switch {
	case v.CanAddr(): // a variable: yaegi stores reflect.ValueOf(&x).Elem()
		return fmt.Sprintf("var %s.%s %s", pkg, name, v.Type())
	case v.Kind() == reflect.Func:
		return fmt.Sprintf("func %s.%s%s", pkg, name, strings.TrimPrefix(v.Type().String(), "func"))
	case v.Kind() == reflect.Pointer && v.IsNil(): // a type: yaegi stores (*T)(nil)
		t := v.Type().Elem()
		return fmt.Sprintf("type %s.%s %s", pkg, name, t.Kind())
	}
	return fmt.Sprintf("const %s.%s = %v", pkg, name, v)
}

// pkgDocs is what inspection knows of a package from its sources.
type pkgDocs struct {
	synopsis string
	names    map[string]string // "F", "T", "T.M" → declaration and doc
}

var (
	docCache   sync.Map // import path → *pkgDocs (nil when no sources)
	gorootOnce sync.Once
	goroot     string
)

// goRoot finds GOROOT: the one this binary was built with if its sources are
// there, else what the go command says.
func goRoot() string {
	gorootOnce.Do(func() {
		if r := runtime.GOROOT(); r != "" && isDir(filepath.Join(r, "src", "fmt")) {
			goroot = r
			return
		}
		if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
			goroot = strings.TrimSpace(string(out))
		}
	})
	return goroot
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// goDocs reads the doc comments of a standard library package from GOROOT,
// once; it returns nil when the sources are not installed.
func goDocs(importPath string) *pkgDocs {
	if d, ok := docCache.Load(importPath); ok {
		return d.(*pkgDocs)
	}
	d := loadDocs(importPath)
	docCache.Store(importPath, d)
	return d
}

func loadDocs(importPath string) *pkgDocs {
	root := goRoot()
	if root == "" {
		return nil
	}
	dir := filepath.Join(root, "src", filepath.FromSlash(importPath))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, n); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			continue
		}
		files = append(files, f)
	}
	return filesDocs(fset, files, importPath)
}

// filesDocs collects the doc comments of a package's parsed files.
func filesDocs(fset *token.FileSet, files []*ast.File, importPath string) *pkgDocs {
	if len(files) == 0 {
		return nil
	}
	p, err := doc.NewFromFiles(fset, files, importPath)
	if err != nil {
		return nil
	}
	d := &pkgDocs{synopsis: p.Synopsis(p.Doc), names: map[string]string{}}
	render := func(node any, comment string) string {
		var b bytes.Buffer
		if err := printer.Fprint(&b, fset, node); err != nil {
			return ""
		}
		if comment != "" {
			b.WriteString("\n\n" + strings.TrimSpace(comment))
		}
		return b.String()
	}
	funcDecl := func(f *doc.Func) string {
		decl := *f.Decl
		decl.Doc, decl.Body = nil, nil
		return render(&decl, f.Doc)
	}
	for _, f := range p.Funcs {
		d.names[f.Name] = funcDecl(f)
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			text := render(stripDoc(v.Decl), v.Doc)
			for _, n := range v.Names {
				d.names[n] = text
			}
		}
	}
	values(p.Consts)
	values(p.Vars)
	for _, t := range p.Types {
		d.names[t.Name] = render(stripDoc(t.Decl), t.Doc)
		for _, f := range t.Funcs {
			d.names[f.Name] = funcDecl(f)
		}
		for _, m := range t.Methods {
			d.names[t.Name+"."+m.Name] = funcDecl(m)
		}
		values(t.Consts)
		values(t.Vars)
	}
	return d
}

// stripDoc returns a copy of a declaration without its doc comment, which
// is shown after it instead.
func stripDoc(g *ast.GenDecl) *ast.GenDecl {
	c := *g
	c.Doc = nil
	return &c
}

// builtinDocs describe the predeclared functions.
var builtinDocs = map[string]string{
	"append":  "func append(slice []Type, elems ...Type) []Type\n\nappend adds elements to the end of a slice, growing it when needed.",
	"cap":     "func cap(v Type) int\n\ncap is the capacity of a slice, array or channel.",
	"close":   "func close(c chan<- Type)\n\nclose closes a channel.",
	"copy":    "func copy(dst, src []Type) int\n\ncopy copies elements between slices and returns how many it copied.",
	"delete":  "func delete(m map[Type]Type1, key Type)\n\ndelete removes the key from the map.",
	"len":     "func len(v Type) int\n\nlen is the length of a string, slice, array, map or channel.",
	"make":    "func make(t Type, size ...IntegerType) Type\n\nmake allocates a slice, map or channel.",
	"new":     "func new(Type) *Type\n\nnew allocates a zero value and returns a pointer to it.",
	"panic":   "func panic(v any)\n\npanic stops the cell with an error (unless recovered).",
	"print":   "func print(args ...Type)\n\nprint writes its arguments to the cell's output.",
	"println": "func println(args ...Type)\n\nprintln writes its arguments, separated by spaces, and a newline.",
	"recover": "func recover() any\n\nrecover, called in a deferred function, stops a panic and returns its value.",
	"min":     "func min[T cmp.Ordered](x T, y ...T) T\n\nmin is the smallest of its arguments (defined by the session: yaegi lacks the builtin).",
	"max":     "func max[T cmp.Ordered](x T, y ...T) T\n\nmax is the largest of its arguments (defined by the session: yaegi lacks the builtin).",
}

// byteOffset converts a position in Unicode code points (as Jupyter sends
// cursors) into a byte offset of s, clamped to s.
func byteOffset(s string, cursor int) int {
	if cursor <= 0 {
		return 0
	}
	n := 0
	for i := range s {
		if n == cursor {
			return i
		}
		n++
	}
	return len(s)
}

// runeOffset converts a byte offset of s into code points.
func runeOffset(s string, off int) int {
	return utf8.RuneCountInString(s[:off])
}

func isIdentRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// selectorChain returns the identifiers of the selector expression that
// ends text: "x := strings.Spl" gives [strings Spl]; "a.b." gives [a b ""].
// It returns nil when text does not end in an identifier or a dot.
func selectorChain(text string) []string {
	var chain []string
	end := len(text)
	for {
		start := end
		for start > 0 {
			r, n := utf8.DecodeLastRuneInString(text[:start])
			if !isIdentRune(r) {
				break
			}
			start -= n
		}
		chain = append(chain, text[start:end])
		if start == 0 || text[start-1] != '.' {
			break
		}
		end = start - 1
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	if first := chain[0]; first != "" {
		if r, _ := utf8.DecodeRuneInString(first); unicode.IsDigit(r) {
			return nil // a number, as in 1.5
		}
	}
	if len(chain) == 1 && chain[0] == "" {
		return nil
	}
	return chain
}
