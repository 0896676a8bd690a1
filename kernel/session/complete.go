package session

import (
	"go/scanner"
	"go/token"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// goKeywords and predeclared are completed everywhere.
var (
	goKeywords = []string{
		"break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough",
		"for", "func", "go", "goto", "if", "import", "interface", "map", "package", "range",
		"return", "select", "struct", "switch", "type", "var",
	}
	predeclared = []string{
		"any", "append", "bool", "byte", "cap", "close", "comparable", "complex", "complex128",
		"complex64", "copy", "delete", "error", "false", "float32", "float64", "imag", "int",
		"int16", "int32", "int64", "int8", "iota", "len", "make", "max", "min", "new", "nil",
		"panic", "print", "println", "real", "recover", "rune", "string", "true", "uint",
		"uint16", "uint32", "uint64", "uint8", "uintptr",
	}
)

// importLine matches the text before the cursor on a line that names a
// package to import: import "fm, import m "ma, or "st inside import ( ).
var importLine = regexp.MustCompile(`^\s*(?:import\s+)?(?:[\p{L}_][\p{L}\p{N}_]*\s+|\.\s+)?"([^"]*)$`)

// Complete returns the completions of the identifier that ends at cursor (a
// position in Unicode code points) and the span [start, end) of code, in
// code points, that they replace. After a dot it completes the members of
// an imported package, or the fields and methods of a session variable;
// elsewhere the session's variables, functions, types and imports, the
// names declared in code itself, keywords and predeclared names. In an
// import path it completes the paths of the packages the kernel knows.
func (s *Session) Complete(code string, cursor int) (matches []string, start, end int) {
	off := byteOffset(code, cursor)
	before := code[:off]
	lineStart := strings.LastIndexByte(before, '\n') + 1
	s.mu.Lock()
	defer s.mu.Unlock()

	if m := importLine.FindStringSubmatch(before[lineStart:]); m != nil && inImport(before, lineStart) {
		prefix := m[1]
		for p := range s.pkgs {
			if strings.HasPrefix(p, prefix) {
				matches = append(matches, p)
			}
		}
		sort.Strings(matches)
		return matches, cursor - runeOffset(prefix, len(prefix)), cursor
	}

	chain := selectorChain(before)
	if len(chain) == 0 {
		return nil, cursor, cursor
	}
	prefix := chain[len(chain)-1]
	start = cursor - runeOffset(prefix, len(prefix))
	var names []string
	if len(chain) == 1 {
		names = s.scopeNames(code)
	} else if len(chain) == 2 {
		names = s.memberNames(chain[0])
	}
	seen := map[string]bool{}
	for _, n := range names {
		if strings.HasPrefix(n, prefix) && !seen[n] && !strings.HasPrefix(n, "_pn") && n != runtimeName {
			seen[n] = true
			matches = append(matches, n)
		}
	}
	sort.Strings(matches)
	return matches, start, cursor
}

// inImport reports whether the line starting at lineStart of before is an
// import: it starts with import, or lies inside an import ( ... ) block.
func inImport(before string, lineStart int) bool {
	if strings.HasPrefix(strings.TrimSpace(before[lineStart:]), "import") {
		return true
	}
	i := strings.LastIndex(before[:lineStart], "import")
	if i < 0 {
		return false
	}
	block := strings.TrimSpace(before[i+len("import") : lineStart])
	return strings.HasPrefix(block, "(") && !strings.Contains(block, ")")
}

// scopeNames are the names visible at the top of a cell.
func (s *Session) scopeNames(code string) []string {
	names := append(append([]string{}, goKeywords...), predeclared...)
	for n := range s.imports {
		names = append(names, n)
	}
	for n := range s.decls {
		if !strings.Contains(n, ".") {
			names = append(names, n)
		}
	}
	for n := range s.globals() {
		names = append(names, n)
	}
	return append(names, codeIdents(code)...)
}

// codeIdents returns the identifiers of code, so that names declared in the
// cell being written complete before it has run.
func codeIdents(code string) []string {
	fset := token.NewFileSet()
	var sc scanner.Scanner
	sc.Init(fset.AddFile("", -1, len(code)), []byte(code), nil, 0)
	var out []string
	for {
		_, tok, lit := sc.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.IDENT {
			out = append(out, lit)
		}
	}
}

// memberNames are the names after recv and a dot: the exported names of an
// imported package, or the fields and methods of a variable.
func (s *Session) memberNames(recv string) []string {
	if p, ok := s.imports[recv]; ok {
		if local := s.local.get(p); local != nil {
			return local.memberNames()
		}
		return exportedNames(s.pkgs[p])
	}
	if v, ok := s.globals()[recv]; ok {
		names := valueMembers(v)
		if d := s.decls[recv]; d != nil && d.typ != "" {
			names = append(names, s.methodsOf(strings.TrimPrefix(d.typ, "*"))...)
		}
		if v.IsValid() {
			t := dynamicType(v)
			if t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			for _, name := range s.typeNames[t] {
				names = append(names, s.methodsOf(name)...)
			}
		}
		slices.Sort(names)
		return slices.Compact(names)
	}
	if d := s.decls[recv]; d != nil && d.kind == "type" {
		return s.methodsOf(recv) // method expressions T.M
	}
	for _, info := range s.pkgs { // a package not imported yet
		if info.name == recv {
			return exportedNames(info)
		}
	}
	return nil
}

// exportedNames lists a package's names, without yaegi's interface wrappers.
func exportedNames(info *pkgInfo) []string {
	if info == nil {
		return nil
	}
	var names []string
	for n := range info.syms {
		if !strings.HasPrefix(n, "_") {
			names = append(names, n)
		}
	}
	return names
}

// methodsOf lists the methods that cells declared on type t.
func (s *Session) methodsOf(t string) []string {
	var names []string
	for k, d := range s.decls {
		if d.kind == "method" && strings.HasPrefix(k, t+".") {
			names = append(names, strings.TrimPrefix(k, t+"."))
		}
	}
	return names
}

// valueMembers lists the fields and methods of v's type (interpreted types
// have no methods in reflection: methodsOf finds those); of a compiled
// type, only the exported ones, which cells can use.
func valueMembers(v reflect.Value) []string {
	if !v.IsValid() {
		return nil
	}
	t := dynamicType(v)
	var names []string
	for i := 0; i < t.NumMethod(); i++ {
		names = append(names, t.Method(i).Name)
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		// A variable is addressable: the methods of *T are its methods too.
		pt := reflect.PointerTo(t)
		for i := 0; i < pt.NumMethod(); i++ {
			names = append(names, pt.Method(i).Name)
		}
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
		for i := 0; i < t.NumMethod(); i++ {
			names = append(names, t.Method(i).Name)
		}
	}
	if t.Kind() == reflect.Struct {
		compiled := t.PkgPath() != "" // interpreted structs are unnamed to reflection
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() || !compiled {
				names = append(names, f.Name)
			}
		}
	}
	return names
}
