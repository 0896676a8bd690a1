package session

import (
	"go/ast"
	"go/types"
	"strings"
)

// modernize rewrites a parsed piece of a cell so that yaegi 0.16.1 runs Go
// it lacks: the generic functions of slices, maps and cmp (renameStd),
// range over integers and functions (rewriteRanges), and type arguments of
// generic calls that Go infers and yaegi does not (inferTypeArgs). The
// last two need the types of the piece, from a type check of it in the
// session (typeCheck), which is skipped for pieces that need neither.
// Every new node takes the position of the code it stands for.
//
// It returns an error for a range over a function that it cannot rewrite.
func (s *Session) modernize(f *ast.File) error {
	s.renameStd(f)
	if !s.needsTypes(f) {
		return nil
	}
	info := s.typeCheck(f)
	qualify := s.qualifier()
	inferTypeArgs(f, info, qualify)
	return s.rewriteRanges(f, info, qualify)
}

// needsTypes reports whether f has a range statement or a call of a
// generic function declared in the session.
func (s *Session) needsTypes(f *ast.File) bool {
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
			if id := calledName(n); id != nil && (generic[id.Name] || s.isGeneric(id.Name)) {
				found = true
			}
		}
		return !found
	})
	return found
}

// calledName returns the name a call calls: f(...), f[T](...), or nil.
func calledName(call *ast.CallExpr) *ast.Ident {
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		return fun
	case *ast.IndexExpr:
		id, _ := fun.X.(*ast.Ident)
		return id
	}
	return nil
}

// isGeneric reports whether name is a generic function of the session.
func (s *Session) isGeneric(name string) bool {
	for p := range stdPackages {
		if strings.HasPrefix(name, "_pn"+p+"_") {
			return true
		}
	}
	d := s.decls[name]
	if d == nil || d.kind != "func" {
		return false
	}
	i := strings.Index(d.sig, "func "+name)
	return i >= 0 && strings.HasPrefix(d.sig[i+len("func "+name):], "[")
}

// qualifier writes the types of other packages with the name the session
// imported them under.
func (s *Session) qualifier() types.Qualifier {
	return func(p *types.Package) string {
		if p.Path() == "main" {
			return ""
		}
		for name, path := range s.imports {
			if path == p.Path() {
				return name
			}
		}
		return p.Name()
	}
}

// inferTypeArgs writes out the type arguments of calls of generic
// functions that leave them (or some of them) out: yaegi infers them from
// the first argument only, and fails on Map([]int{1}, func(int) string
// {...}) or on untyped constants.
func inferTypeArgs(n ast.Node, info *types.Info, qualify types.Qualifier) {
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
