package rewrite

import (
	"go/ast"
	"go/token"
)

// minMax is the min-max pass: the session defines min and max as generic
// functions (yaegi 0.16.1 lacks the builtins), which yaegi can call only
// with typed arguments first and cannot use to define a global. It types
// the calls of the piece's node (typeMinMax) and splits the definitions by
// them among the cell's top-level statements (splitMinMax).
func minMax(p *Piece) error {
	ast.Inspect(p.node(), func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			typeMinMax(call)
		}
		return true
	})
	if p.Top != nil {
		splitMinMax(p.Top)
	}
	return nil
}

// typeMinMax helps the session's generic min and max with untyped
// constants, which yaegi infers as the type parameter when they come first,
// and cannot match to one at all when they are floating-point:
//   - a typed argument moves in front of the literals before it (min and max
//     do not depend on the order, and literals have no side effects);
//   - float literals become float64, and so do the other numeric literals of
//     a call whose arguments are all literals (max(1, 2.5)).
func typeMinMax(call *ast.CallExpr) {
	id, ok := call.Fun.(*ast.Ident)
	if !ok || (id.Name != "min" && id.Name != "max") || len(call.Args) == 0 {
		return
	}
	for i, a := range call.Args {
		if numberLit(a) == nil {
			copy(call.Args[1:i+1], call.Args[:i])
			call.Args[0] = a
			break
		}
	}
	allLiterals, anyFloat := true, false
	for _, a := range call.Args {
		lit := numberLit(a)
		if lit == nil {
			allLiterals = false
		} else if lit.Kind == token.FLOAT {
			anyFloat = true
		}
	}
	if !anyFloat {
		return
	}
	for i, a := range call.Args {
		if lit := numberLit(a); lit != nil && (lit.Kind == token.FLOAT || allLiterals) {
			call.Args[i] = &ast.CallExpr{Fun: Ident(a.Pos(), "float64"), Lparen: a.Pos(), Args: []ast.Expr{a}, Rparen: a.End()}
		}
	}
}

// splitMinMax rewrites top-level definitions by the session's generic min
// and max, which yaegi cannot type when they declare a global (a := max(v,
// w) fails with "nil reflect type"; an assignment to an existing global
// works): a := max(x, y...) becomes a := x; a = max(a, y...), and a :=
// max(x) becomes a := x. Run it after typeMinMax has put a typed argument
// first, so that a takes the type max would give it.
func splitMinMax(body *ast.BlockStmt) {
	list := make([]ast.Stmt, 0, len(body.List))
	for _, st := range body.List {
		name, call := minMaxDefine(st)
		if call == nil {
			list = append(list, st)
			continue
		}
		first := call.Args[0]
		list = append(list, &ast.AssignStmt{Lhs: []ast.Expr{name}, TokPos: st.Pos(), Tok: token.DEFINE, Rhs: []ast.Expr{first}})
		if len(call.Args) > 1 {
			call.Args[0] = Ident(first.Pos(), name.Name)
			list = append(list, &ast.AssignStmt{Lhs: []ast.Expr{Ident(name.Pos(), name.Name)}, TokPos: st.Pos(), Tok: token.ASSIGN, Rhs: []ast.Expr{call}})
		}
	}
	body.List = list
}

// minMaxDefine returns the variable and the call of st when st is a := of
// one variable by a call of min or max.
func minMaxDefine(st ast.Stmt) (*ast.Ident, *ast.CallExpr) {
	as, ok := st.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return nil, nil
	}
	name, _ := as.Lhs[0].(*ast.Ident)
	call, ok := as.Rhs[0].(*ast.CallExpr)
	if name == nil || name.Name == "_" || !ok || len(call.Args) == 0 || call.Ellipsis.IsValid() {
		return nil, nil
	}
	if id, ok := call.Fun.(*ast.Ident); !ok || (id.Name != "min" && id.Name != "max") {
		return nil, nil
	}
	return name, call
}

// numberLit returns the numeric literal e is (maybe with a sign), or nil.
func numberLit(e ast.Expr) *ast.BasicLit {
	if u, ok := e.(*ast.UnaryExpr); ok && (u.Op == token.SUB || u.Op == token.ADD) {
		e = u.X
	}
	if lit, ok := ast.Unparen(e).(*ast.BasicLit); ok && (lit.Kind == token.INT || lit.Kind == token.FLOAT) {
		return lit
	}
	return nil
}
