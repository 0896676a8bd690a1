package rewrite

import (
	"go/ast"
	"go/token"
)

// wrapCompound turns each top-level compound statement of a cell (if, for,
// switch, select, a block) that holds a multi-value := (v, err := f())
// into the call of a function literal that holds it: func() { if … }().
// yaegi 0.16 loses the second variable of such a := in a block nested in
// top-level code ("undefined: err"), but not inside a function. A compound
// statement declares nothing outside itself, so the wrapping changes no
// scope; it is skipped for statements that contain a return, a goto or a
// labelled branch out of them, whose meaning the literal would change.
// Other statements stay as they are: an interrupted loop at the top level
// stops at once, while one in a literal may take a step more.
func wrapCompound(p *Piece) error {
	if p.Top == nil {
		return nil
	}
	body := p.Top
	for i, st := range body.List {
		switch st.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt,
			*ast.SelectStmt, *ast.BlockStmt:
		default:
			continue
		}
		if !hasMultiDefine(st) || leavesStatement(st) {
			continue
		}
		pos := st.Pos()
		lit := &ast.FuncLit{
			Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}},
			Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{st}, Rbrace: st.End()},
		}
		body.List[i] = &ast.ExprStmt{X: &ast.CallExpr{Fun: lit, Lparen: pos, Rparen: st.End()}}
	}
	return nil
}

// hasMultiDefine reports whether st contains, outside nested function
// literals, a := of several variables from one expression.
func hasMultiDefine(st ast.Stmt) bool {
	return AnyOutsideFuncLits(func(n ast.Node) bool {
		a, ok := n.(*ast.AssignStmt)
		return ok && a.Tok == token.DEFINE && len(a.Lhs) > 1 && len(a.Rhs) == 1
	}, st)
}

// leavesStatement reports whether st contains, outside nested function
// literals, a return, a goto, or a break or continue with a label.
func leavesStatement(st ast.Stmt) bool {
	return AnyOutsideFuncLits(func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ReturnStmt:
			return true
		case *ast.BranchStmt:
			return n.Tok == token.GOTO || n.Label != nil
		}
		return false
	}, st)
}
