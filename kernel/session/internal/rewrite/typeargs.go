package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strings"
)

// needsTypes reports whether the piece has a range statement or a call of
// a generic function declared in the session or in the piece: the passes
// that need types leave the others alone, and the type check is skipped.
func (p *Piece) needsTypes() bool {
	if p.needs == 0 {
		p.needs = 1
		if needsTypes(p.File, p.r.isGeneric) {
			p.needs = 2
		}
	}
	return p.needs == 2
}

// needsTypes reports whether f has a range statement or a call of a
// generic function, declared in f or one that isGeneric names.
func needsTypes(f *ast.File, isGeneric func(string) bool) bool {
	generic := map[string]bool{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Type.TypeParams != nil {
			generic[fd.Name.Name] = true
		}
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.RangeStmt:
			found = true
		case *ast.CallExpr:
			if id := calledName(n); id != nil && (generic[id.Name] || isGeneric(id.Name)) {
				found = true
			}
		}
		return !found
	})
	return found
}

// calledName returns the name a call calls: f(...), f[T](...),
// f[T, U](...), or nil.
func calledName(call *ast.CallExpr) *ast.Ident {
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		return fun
	case *ast.IndexExpr:
		id, _ := fun.X.(*ast.Ident)
		return id
	case *ast.IndexListExpr:
		id, _ := fun.X.(*ast.Ident)
		return id
	}
	return nil
}

// isGeneric reports whether name is a generic function of the session.
func (r *Rewriter) isGeneric(name string) bool {
	for p := range stdPackages {
		if strings.HasPrefix(name, "_pn"+p+"_") {
			return true
		}
	}
	d, ok := r.env.Decl(name)
	if !ok || d.Kind != "func" {
		return false
	}
	i := strings.Index(d.Sig, "func "+name)
	return i >= 0 && strings.HasPrefix(d.Sig[i+len("func "+name):], "[")
}

// qualifier writes the types of other packages with the name the session
// imported them under. A package the session has not imported gets a name
// that does not parse, so that typeExpr writes no type the cell could not.
func (r *Rewriter) qualifier() types.Qualifier {
	imports := r.env.Imports()
	return func(p *types.Package) string {
		if p.Path() == "main" {
			return ""
		}
		for name, path := range imports {
			if path == p.Path() {
				return name
			}
		}
		return "?" + p.Name()
	}
}

// inferTypeArgs is the type-args pass: it writes out the type arguments
// of calls of generic functions that leave them (or some of them) out:
// yaegi infers them from the first argument only, and fails on
// Map([]int{1}, func(int) string {...}) or on untyped constants.
func inferTypeArgs(p *Piece) error {
	if p.needsTypes() {
		writeTypeArgs(p.File, p.Types(), p.r.qualifier())
	}
	return nil
}

// writeTypeArgs writes out the type arguments of the generic calls in n
// that info knows.
func writeTypeArgs(n ast.Node, info *types.Info, qualify types.Qualifier) {
	rewriteExprs(n, func(e ast.Expr) ast.Expr {
		call, ok := e.(*ast.CallExpr)
		if !ok {
			return e
		}
		id := calledName(call)
		if id == nil {
			return e
		}
		inst, ok := info.Instances[id]
		if !ok || inst.TypeArgs.Len() == 0 {
			return e
		}
		pos := id.Pos()
		var args []ast.Expr
		for i := 0; i < inst.TypeArgs.Len(); i++ {
			t := inst.TypeArgs.At(i)
			if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
				t = types.Default(t)
			}
			a := typeExpr(t, qualify, pos)
			if a == nil {
				return e
			}
			args = append(args, a)
		}
		if len(args) == 1 {
			call.Fun = &ast.IndexExpr{X: id, Lbrack: pos, Index: args[0], Rbrack: pos}
		} else {
			call.Fun = &ast.IndexListExpr{X: id, Lbrack: pos, Indices: args, Rbrack: pos}
		}
		return call
	})
}

// convertGenericResults is the generic-results pass: it converts the value
// of a generic call that defines a variable to its type, and splits a
// top-level definition of a new variable by such a call (see
// splitGenericDefines).
func convertGenericResults(p *Piece) error {
	if !p.needsTypes() {
		return nil
	}
	converted := convertResults(p.File, p.Types(), p.r.qualifier())
	if p.Top != nil {
		splitGenericDefines(p.Top, converted, p.r.env.Globals)
	}
	return nil
}

// convertResults converts the value of a generic call that defines a
// variable (x := F(y), var x = F(y)) to its type, x := T(F(y)): yaegi
// fails to type such a definition of a global ("constant definition loop").
// It returns the conversions it made.
func convertResults(n ast.Node, info *types.Info, qualify types.Qualifier) map[*ast.CallExpr]bool {
	made := map[*ast.CallExpr]bool{}
	convert := func(values []ast.Expr) {
		for i, v := range values {
			call, ok := v.(*ast.CallExpr)
			if !ok {
				continue
			}
			id := calledName(call)
			if id == nil {
				continue
			}
			if _, ok := info.Instances[id]; !ok {
				continue
			}
			tv, ok := info.Types[call]
			if !ok || tv.Type == nil {
				continue
			}
			if _, tuple := tv.Type.(*types.Tuple); tuple {
				continue
			}
			if typ := typeExpr(tv.Type, qualify, call.Pos()); typ != nil {
				conv := &ast.CallExpr{Fun: &ast.ParenExpr{Lparen: call.Pos(), X: typ, Rparen: call.Pos()},
					Lparen: call.Pos(), Args: []ast.Expr{call}, Rparen: call.End()}
				values[i] = conv
				made[conv] = true
			}
		}
	}
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE && len(x.Lhs) == len(x.Rhs) {
				convert(x.Rhs)
			}
		case *ast.ValueSpec:
			if x.Type == nil && len(x.Names) == len(x.Values) {
				convert(x.Values)
			}
		}
		return true
	})
	return made
}

// splitGenericDefines turns a top-level x := T(F(y)) of a cell, made by
// convertResults, into var x T; x = F(y), when x is not among the
// session's globals: yaegi fails to type the definition of a global by
// some generic calls even with the conversion ("not a generic type" for
// results of type map[K]V).
func splitGenericDefines(top *ast.BlockStmt, converted map[*ast.CallExpr]bool, sessionGlobals func() map[string]reflect.Value) {
	var globals map[string]reflect.Value
	list := make([]ast.Stmt, 0, len(top.List))
	for _, st := range top.List {
		as, ok := st.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			list = append(list, st)
			continue
		}
		name, _ := as.Lhs[0].(*ast.Ident)
		conv, _ := as.Rhs[0].(*ast.CallExpr)
		if name == nil || name.Name == "_" || conv == nil || !converted[conv] {
			list = append(list, st)
			continue
		}
		if globals == nil {
			globals = sessionGlobals()
		}
		if _, exists := globals[name.Name]; exists {
			list = append(list, st)
			continue
		}
		paren := conv.Fun.(*ast.ParenExpr)
		list = append(list, varDecl(as.Pos(), name.Name, paren.X),
			&ast.AssignStmt{Lhs: as.Lhs, TokPos: as.TokPos, Tok: token.ASSIGN, Rhs: conv.Args})
	}
	top.List = list
}
