package rewrite

import (
	"go/ast"
	"go/token"
)

// The helpers below build and search syntax trees for the passes, and for
// the session's own instrumentation of the code it compiles.

// Ident returns the identifier name at pos.
func Ident(pos token.Pos, name string) *ast.Ident { return &ast.Ident{NamePos: pos, Name: name} }

// AnyOutsideFuncLits reports whether match holds for a node of roots,
// leaving out what function literals hold: their bodies run when they are
// called, not where they stand. The walk stops at the first match.
func AnyOutsideFuncLits[N ast.Node](match func(ast.Node) bool, roots ...N) bool {
	found := false
	for _, root := range roots {
		ast.Inspect(root, func(n ast.Node) bool {
			if _, lit := n.(*ast.FuncLit); found || lit {
				return false
			}
			found = match(n)
			return !found
		})
	}
	return found
}

// StmtList returns the statements of a block or a case or select clause,
// and nil for any other node.
func StmtList(n ast.Node) []ast.Stmt {
	switch n := n.(type) {
	case *ast.BlockStmt:
		return n.List
	case *ast.CaseClause:
		return n.Body
	case *ast.CommClause:
		return n.Body
	}
	return nil
}
