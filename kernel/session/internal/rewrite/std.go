package rewrite

import (
	"fmt"
	"go/ast"
	"reflect"
	"strings"
)

// The std-generics pass gives cells the generic functions of packages slices, maps,
// cmp and iter, which yaegi's standard library bindings lack: Go source of
// its own (stdslices.go, stdmaps.go) compiled into the session on first use,
// under names prefixed _pnslices_, _pnmaps_, _pncmp_ and _pniter_. Before a
// piece is compiled, renameStd turns slices.Sort into _pnslices_Sort, and
// so on, wherever a name stands for the standard package: imported under
// that name, or the package's own name not imported at all (so that
// slices.Sort works without an import, as in a notebook one expects).

// stdSources is the Go source of the session's generic standard functions.
const stdSources = "import (_pnsort \"sort\"; _pnfmt \"fmt\")\n" + stdCmp + stdIter + stdSlices + stdMaps

// stdPackages are the standard packages that stdSources implements.
var stdPackages = map[string]bool{"slices": true, "maps": true, "cmp": true, "iter": true}

// StdPackage reports whether path is a standard package that the session
// implements itself (slices, maps, cmp and iter), whatever yaegi has of it.
func StdPackage(path string) bool { return stdPackages[path] }

// renameStd is the std-generics pass: it renames the piece's uses of the
// standard generic packages and compiles the session's functions on first
// use.
func renameStd(p *Piece) error {
	renamed, err := p.r.renameStdIn(p.File)
	if err != nil {
		return err
	}
	if renamed {
		return p.r.defineStd()
	}
	return nil
}

// renameStdIn renames the uses of the standard generic packages in n and
// reports whether it renamed any. It returns an error for a name those
// packages lack here.
func (r *Rewriter) renameStdIn(n ast.Node) (bool, error) {
	imports := r.env.Imports()
	if !mayNameStd(n, imports) {
		return false, nil
	}
	local := map[string]bool{} // names n declares, which shadow a package name
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.AssignStmt:
			for _, l := range x.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					local[id.Name] = true
				}
			}
		case *ast.ValueSpec:
			for _, id := range x.Names {
				local[id.Name] = true
			}
		case *ast.Field:
			for _, id := range x.Names {
				local[id.Name] = true
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{x.Key, x.Value} {
				if id, ok := e.(*ast.Ident); ok {
					local[id.Name] = true
				}
			}
		case *ast.FuncDecl:
			local[x.Name.Name] = true
		case *ast.TypeSpec:
			local[x.Name.Name] = true
		}
		return true
	})
	globals := r.env.Globals()
	// pkgOf returns the standard package that name stands for, or "".
	pkgOf := func(name string) string {
		if local[name] {
			return ""
		}
		if path, ok := imports[name]; ok {
			if stdPackages[path] {
				return path
			}
			return ""
		}
		_, isDecl := r.env.Decl(name)
		if _, isGlobal := globals[name]; isGlobal || isDecl || !stdPackages[name] {
			return ""
		}
		return name
	}
	var err error
	renamed := false
	rewriteExprs(n, func(e ast.Expr) ast.Expr {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return e
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return e
		}
		if pkg := pkgOf(id.Name); pkg != "" {
			name := "_pn" + pkg + "_" + sel.Sel.Name
			if !ast.IsExported(sel.Sel.Name) || stdTypes().Scope().Lookup(name) == nil {
				if err == nil {
					err = &Error{Pos: r.env.FileSet().Position(sel.Sel.Pos()), Msg: fmt.Sprintf(
						"undefined: %s.%s (the session's package %s has %s)", id.Name, sel.Sel.Name, pkg, stdList(pkg))}
				}
				return e
			}
			renamed = true
			return Ident(id.Pos(), name)
		}
		return e
	})
	return renamed, err
}

// mayNameStd reports whether n has a selector x.Name whose x may stand for
// a standard generic package: a name the session imported one of them
// under, or one of their own names. renameStd has nothing to do otherwise.
func mayNameStd(n ast.Node, imports map[string]string) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if sel, ok := x.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && (stdPackages[id.Name] || stdPackages[imports[id.Name]]) {
				found = true
			}
		}
		return !found
	})
	return found
}

// defineStd compiles the session's standard functions, once per session
// (Reset forgets them): most sessions never use them.
func (r *Rewriter) defineStd() error {
	if r.stdDefined {
		return nil
	}
	r.stdDefined = true
	if err := r.env.CompileDecls(stdSources); err != nil {
		return fmt.Errorf("session: defining slices, maps and cmp: %w", err)
	}
	return nil
}

// stdList lists the names of the session's standard package pkg.
func stdList(pkg string) string {
	prefix := "_pn" + pkg + "_"
	var names []string
	for _, n := range stdTypes().Scope().Names() {
		if strings.HasPrefix(n, prefix) && ast.IsExported(n[len(prefix):]) {
			names = append(names, n[len(prefix):])
		}
	}
	return strings.Join(names, ", ")
}

var (
	exprType    = reflect.TypeOf((*ast.Expr)(nil)).Elem()
	objectType  = reflect.TypeOf((*ast.Object)(nil))
	scopeType   = reflect.TypeOf((*ast.Scope)(nil))
	commentType = reflect.TypeOf((*ast.CommentGroup)(nil))
)

// rewriteExprs replaces every expression e of the tree n (outermost first)
// by f(e), then goes on into what f returned.
func rewriteExprs(n ast.Node, f func(ast.Expr) ast.Expr) {
	walkFields(n, func(v reflect.Value) {
		if v.Type() == exprType && !v.IsNil() {
			v.Set(reflect.ValueOf(f(v.Interface().(ast.Expr))))
		}
	})
}

// walkFields calls visit on every struct field and slice element of the
// tree n (not going into objects, scopes or comments), then goes on into
// what the field or element holds after visit.
func walkFields(n ast.Node, visit func(reflect.Value)) {
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() && v.Type() != objectType && v.Type() != scopeType && v.Type() != commentType {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				visit(v.Field(i))
				walk(v.Field(i))
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				visit(v.Index(i))
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(n))
}

// StdNames turns the names of the session's standard functions in msg, a
// message of the interpreter, back into the names the cell uses:
// _pnslices_Sort is slices.Sort.
func StdNames(msg string) string {
	for p := range stdPackages {
		msg = strings.ReplaceAll(msg, "_pn"+p+"_", p+".")
	}
	return msg
}
