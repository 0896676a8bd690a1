package session

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"strings"
)

// modernize rewrites a parsed piece of a cell so that yaegi 0.16.1 runs Go
// it lacks or gets wrong: case clauses of several expressions in a switch
// without a tag (joinTaglessCases), the generic functions of slices, maps and cmp (renameStd),
// range over integers and functions (rewriteRanges), and type arguments of
// generic calls that Go infers and yaegi does not (inferTypeArgs). The
// last two need the types of the piece, from a type check of it in the
// session (typeCheck), which is skipped for pieces that need neither.
// Every new node takes the position of the code it stands for.
//
// top is the body of the statements of a cell, nil for declarations. It
// returns an error for a range over a function that it cannot rewrite, or
// for a function that the session's slices, maps or cmp lack.
func (s *Session) modernize(f *ast.File, top *ast.BlockStmt) error {
	joinTaglessCases(f)
	renamed, err := s.renameStd(f)
	if err != nil {
		return err
	}
	if renamed {
		if err := s.defineStd(); err != nil {
			return err
		}
	}
	if !s.needsTypes(f) {
		return nil
	}
	info := s.typeCheck(f)
	qualify := s.qualifier()
	inferTypeArgs(f, info, qualify)
	converted := convertGenericResults(f, info, qualify)
	if top != nil {
		s.splitGenericDefines(top, converted)
	}
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
// imported them under. A package the session has not imported gets a name
// that does not parse, so that typeExpr writes no type the cell could not.
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
		return "?" + p.Name()
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

// convertGenericResults converts the value of a generic call that defines
// a variable (x := F(y), var x = F(y)) to its type, x := T(F(y)): yaegi
// fails to type such a definition of a global ("constant definition loop").
// It returns the conversions it made.
func convertGenericResults(n ast.Node, info *types.Info, qualify types.Qualifier) map[*ast.CallExpr]bool {
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
// convertGenericResults, into var x T; x = F(y), when x is new: yaegi
// fails to type the definition of a global by some generic calls even with
// the conversion ("not a generic type" for results of type map[K]V).
func (s *Session) splitGenericDefines(top *ast.BlockStmt, converted map[*ast.CallExpr]bool) {
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
			globals = s.globals()
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
