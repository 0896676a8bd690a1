package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// yaegi 0.16.1 cannot range over an integer (Go 1.22) or a function (Go
// 1.23). rewriteRanges turns such loops into code it runs, giving the new
// nodes the position of the range statement, so that lines and columns of
// errors stay those of the cell:
//
//	for i := range n { body }
//	  → { _pnN := n; for _pnI := _pnN - _pnN; _pnI < _pnN; _pnI++ { i := _pnI; { body } } }
//
//	for k, v := range seq { body }
//	  → { var _pnRet bool; seq(func(k K, v V) bool { body'; return true }); if _pnRet { return … } }
//
// where in body' continue becomes return true, break return false, and a
// return of the enclosing function sets _pnRet (and the results) and
// returns false; an iterator that calls yield again after false panics, as
// in Go. A loop whose body leaves it another way (goto, or a labelled
// branch to an outer statement) or defers a call is an error. A loop whose
// operand's type the session's type check could not find is left alone:
// yaegi's error stands.

// rangeSlot is a range statement of the tree and where it is: *slot is the
// statement itself or the labelled statement around it.
type rangeSlot struct {
	slot  *ast.Stmt
	rng   *ast.RangeStmt
	label *ast.Ident
	fn    ast.Node // the innermost function around it (*ast.FuncDecl or *ast.FuncLit)
}

// rewriteRanges is the ranges pass.
func rewriteRanges(p *Piece) error {
	if !p.needsTypes() {
		return nil
	}
	return rewriteRangesIn(p.File, p.Types(), p.r.qualifier(), p.r.env.FileSet())
}

// rewriteRangesIn rewrites the ranges of n over integers and functions,
// the innermost first. info may lack types: then only ranges over integer
// literals and len or cap calls are recognized. It returns an error for a
// range over a function that it cannot rewrite.
func rewriteRangesIn(n ast.Node, info *types.Info, qualify types.Qualifier, fset *token.FileSet) error {
	var slots []rangeSlot
	var stack []ast.Node
	ast.Inspect(n, func(x ast.Node) bool {
		if x == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, x)
		list := StmtList(x)
		for i := range list {
			rs := rangeSlot{slot: &list[i]}
			switch st := list[i].(type) {
			case *ast.RangeStmt:
				rs.rng = st
			case *ast.LabeledStmt:
				rs.rng, _ = st.Stmt.(*ast.RangeStmt)
				rs.label = st.Label
			}
			if rs.rng == nil {
				continue
			}
			for j := len(stack) - 1; j >= 0; j-- {
				if _, ok := stack[j].(*ast.FuncDecl); ok {
					rs.fn = stack[j]
					break
				}
				if _, ok := stack[j].(*ast.FuncLit); ok {
					rs.fn = stack[j]
					break
				}
			}
			slots = append(slots, rs)
		}
		return true
	})
	for i := len(slots) - 1; i >= 0; i-- {
		rs := slots[i]
		var t types.Type
		if tv, ok := info.Types[rs.rng.X]; ok && tv.Type != nil {
			t = tv.Type
		}
		switch {
		case t != nil && isInteger(t), t == nil && syntacticInt(rs.rng.X):
			*rs.slot = rangeInt(rs.rng, rs.label, strconv.Itoa(i))
		case t != nil && iterator(t) != nil:
			st, why := rangeFunc(rs, iterator(t), info, qualify, i)
			if st == nil {
				return &Error{Pos: fset.Position(rs.rng.For), Msg: fmt.Sprintf(
					"range over a function: %s, which the session cannot rewrite for the interpreter (yaegi 0.16.1, which lacks range over functions); "+
						"set a variable and break, or call the iterator with a yield function", why)}
			}
			*rs.slot = st
		}
	}
	return nil
}

// isInteger reports whether t is an integer type (or an untyped integer).
func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

// syntacticInt reports whether e is an integer without a type check: an
// integer literal, a call of len or cap, or arithmetic of those.
func syntacticInt(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.BasicLit:
		return e.Kind == token.INT
	case *ast.CallExpr:
		id, ok := e.Fun.(*ast.Ident)
		return ok && (id.Name == "len" || id.Name == "cap")
	case *ast.BinaryExpr:
		switch e.Op {
		case token.ADD, token.SUB, token.MUL, token.QUO, token.REM:
			return syntacticInt(e.X) && syntacticInt(e.Y)
		}
	}
	return false
}

// iterator returns the yield function type of an iterator type
// func(yield func(...) bool), or nil.
func iterator(t types.Type) *types.Signature {
	sig, ok := t.Underlying().(*types.Signature)
	if !ok || sig.Params().Len() != 1 || sig.Results().Len() != 0 {
		return nil
	}
	yield, ok := sig.Params().At(0).Type().Underlying().(*types.Signature)
	if !ok || yield.Params().Len() > 2 || yield.Results().Len() != 1 {
		return nil
	}
	if b, ok := yield.Results().At(0).Type().Underlying().(*types.Basic); !ok || b.Kind() != types.Bool {
		return nil
	}
	return yield
}

// rangeInt returns the block that does what range over an integer r, with
// label if not nil, does (see rewriteRanges). The bound is a variable of
// its own, not a second variable of the for's :=, which yaegi loses in top
// level code.
// Its variables are named with suffix: yaegi confuses shadowed variables of
// nested blocks in top-level code.
func rangeInt(r *ast.RangeStmt, label *ast.Ident, suffix string) ast.Stmt {
	pos := r.For
	id := func(name string) *ast.Ident { return Ident(pos, name+suffix) }
	inner := &ast.BlockStmt{Lbrace: r.Body.Lbrace, Rbrace: r.Body.Rbrace}
	if r.Key != nil && !isBlank(r.Key) {
		tok := r.Tok
		if tok != token.DEFINE {
			tok = token.ASSIGN
		}
		inner.List = append(inner.List, &ast.AssignStmt{Lhs: []ast.Expr{r.Key}, TokPos: pos, Tok: tok, Rhs: []ast.Expr{id("_pnI")}})
	}
	inner.List = append(inner.List, r.Body)
	zero := &ast.BinaryExpr{X: id("_pnN"), OpPos: pos, Op: token.SUB, Y: id("_pnN")}
	var loop ast.Stmt = &ast.ForStmt{
		For:  pos,
		Init: &ast.AssignStmt{Lhs: []ast.Expr{id("_pnI")}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{zero}},
		Cond: &ast.BinaryExpr{X: id("_pnI"), OpPos: pos, Op: token.LSS, Y: id("_pnN")},
		Post: &ast.IncDecStmt{X: id("_pnI"), TokPos: pos, Tok: token.INC},
		Body: inner,
	}
	if label != nil {
		loop = &ast.LabeledStmt{Label: label, Colon: pos, Stmt: loop}
	}
	bound := &ast.AssignStmt{Lhs: []ast.Expr{id("_pnN")}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{r.X}}
	return &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{bound, loop}, Rbrace: r.End()}
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}
