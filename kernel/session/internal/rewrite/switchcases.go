package rewrite

import (
	"go/ast"
	"go/token"
)

// joinTaglessCases rewrites every clause `case a, b, c:` of a switch
// without a tag into `case (a) || (b) || (c):`. yaegi 0.16.1 tests only
// the first expression of such a clause, so `switch { case x == 1, x == 3:
// }` missed x = 3. Go evaluates the expressions left to right and stops at
// the first true one, as || does, so the meaning is the same.
func joinTaglessCases(n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		sw, ok := n.(*ast.SwitchStmt)
		if !ok || sw.Tag != nil {
			return true
		}
		for _, st := range sw.Body.List {
			cc, ok := st.(*ast.CaseClause)
			if !ok || len(cc.List) < 2 {
				continue
			}
			joined := cc.List[0]
			for _, e := range cc.List[1:] {
				joined = &ast.BinaryExpr{X: paren(joined), OpPos: e.Pos(), Op: token.LOR, Y: paren(e)}
			}
			cc.List = []ast.Expr{joined}
		}
		return true
	})
}

// paren wraps e in parentheses at e's position, unless it is an operand
// that needs none.
func paren(e ast.Expr) ast.Expr {
	switch e.(type) {
	case *ast.Ident, *ast.BasicLit, *ast.CallExpr, *ast.ParenExpr, *ast.SelectorExpr:
		return e
	}
	return &ast.ParenExpr{Lparen: e.Pos(), X: e, Rparen: e.End()}
}
