package session

import (
	"go/ast"
	"reflect"
	"strings"
)

// The session gives cells the generic functions of packages slices, maps,
// cmp and iter, which yaegi's standard library bindings lack: Go source of
// its own (stdslices.go, stdmaps.go) that Reset compiles into the session
// under names prefixed _pnslices_, _pnmaps_, _pncmp_ and _pniter_. Before a
// piece is compiled, renameStd turns slices.Sort into _pnslices_Sort, and
// so on, wherever the package name means the standard package: imported
// under its own name, or not imported at all (so that slices.Sort works
// without an import, as in a notebook one expects).

// stdSources is the Go source of the session's generic standard functions.
const stdSources = "import (_pnsort \"sort\"; _pnfmt \"fmt\")\n" + stdCmp + stdIter + stdSlices + stdMaps

// stdPackages are the standard packages that stdSources implements.
var stdPackages = map[string]bool{"slices": true, "maps": true, "cmp": true, "iter": true}

// renameStd renames the uses of the standard generic packages in n.
func (s *Session) renameStd(n ast.Node) {
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
	globals := s.globals()
	means := func(name string) bool {
		if !stdPackages[name] || local[name] {
			return false
		}
		if path, ok := s.imports[name]; ok {
			return path == name
		}
		_, isGlobal := globals[name]
		return !isGlobal && s.decls[name] == nil
	}
	rewriteExprs(n, func(e ast.Expr) ast.Expr {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return e
		}
		if id, ok := sel.X.(*ast.Ident); ok && means(id.Name) && ast.IsExported(sel.Sel.Name) {
			return ident(id.Pos(), "_pn"+id.Name+"_"+sel.Sel.Name)
		}
		return e
	})
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
	var walk func(v reflect.Value)
	visit := func(v reflect.Value) {
		if v.Type() == exprType && !v.IsNil() {
			v.Set(reflect.ValueOf(f(v.Interface().(ast.Expr))))
		}
		walk(v)
	}
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() && v.Type() != objectType && v.Type() != scopeType && v.Type() != commentType {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				visit(v.Field(i))
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				visit(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(n))
}

// stdName turns the names of the session's standard functions in a
// message back into the names a cell uses: _pnslices_Sort is slices.Sort.
func stdName(msg string) string {
	for p := range stdPackages {
		msg = strings.ReplaceAll(msg, "_pn"+p+"_", p+".")
	}
	return msg
}
