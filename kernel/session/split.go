package session

import (
	"go/ast"
	"go/token"
	"strconv"

	"github.com/pathnotes/pathnotes/kernel/session/internal/rewrite"
)

// Calls of methods of compiled types cannot be guarded as the bound
// packages' functions are (guard.go): yaegi finds them by reflection on the
// value; nor are the standard library's functions guarded. A call abandoned by an interrupt may return long after, and yaegi then
// stores its results at once into the variables assigned (one step with the
// call), and, at the top level of a cell, whose frame is live again once
// the next cell runs, goes on with the statement.
//
// So an assignment whose right side calls a method (x.M(...), x not a
// package), or a function of a package whose functions are not guarded
// (data, err = os.ReadFile(name)), is split: the right side is evaluated
// into temporaries first, then assigned. Inside a function, the interpreter stops between the two
// steps once the cell is interrupted (the function's frame never runs
// again). At the top level, a check of the cell's number (_pnrt.Check, as
// between top-level statements) sits between them:
//
//	a, err = g.Solve(x)  →  { _pnt0, _pnt1 := g.Solve(x); _pnrt.Check(7); a, err = _pnt0, _pnt1 }
//
// (With several values, the top-level block runs as a function literal
// instead, whose frame stops for good once the cell is interrupted.)
//
// Other statements are not split: at the top level, the rest of a
// statement such as fmt.Println(g.Slow()) still runs once the call
// returns. Left untouched too, and so not covered: left sides that call
// functions (m[key()] = x.M()), as the split would change the order of the
// calls; right sides that may be untyped (x = 1 << g.N()), whose type the left
// side decides; and definitions (:=), whose types the session cannot name.
// A top-level := whose variables all exist is run as = (see runStmts) and
// is covered; one that defines a new variable beside an existing one
// (r, err := g.Solve() with r from an earlier cell) is not: the abandoned
// call may still store its result in r.

// splitMethodAssigns splits the method-call assignments of n. When top is
// true, n is top-level code of cell gen and gets checks.
func (s *Session) splitMethodAssigns(n ast.Node, top bool, gen int64) {
	packages := map[string]bool{runtimeName: true, contextName: true}
	s.mu.Lock()
	for name, path := range s.imports {
		if s.guarded[path] {
			packages[name] = true // guarded already (guard.go)
		}
	}
	s.mu.Unlock()
	sp := &splitter{packages: packages, gen: gen}
	sp.walk(n, top)
}

type splitter struct {
	packages map[string]bool
	gen      int64
	n        int // temporaries named so far
}

// walk splits in the statement lists of n; top tells whether they run in
// the global frame.
func (sp *splitter) walk(n ast.Node, top bool) {
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncLit:
			sp.walk(x.Body, false)
			return false
		case *ast.FuncDecl:
			if x.Body != nil {
				sp.walk(x.Body, false)
			}
			return false
		case *ast.BlockStmt:
			sp.list(x.List, top)
		case *ast.CaseClause:
			sp.list(x.Body, top)
		case *ast.CommClause:
			sp.list(x.Body, top)
		}
		return true
	})
}

func (sp *splitter) list(list []ast.Stmt, top bool) {
	for i, st := range list {
		if b := sp.split(st, top); b != nil {
			list[i] = b
		}
	}
}

// split returns the rewriting of st, or nil when st stays.
func (sp *splitter) split(st ast.Stmt, top bool) ast.Stmt {
	a, ok := st.(*ast.AssignStmt)
	if !ok || a.Tok == token.DEFINE || !sp.callsMethod(a.Rhs) || hasCall(a.Lhs) {
		return nil
	}
	for _, e := range a.Rhs {
		if mayBeUntyped(e) {
			return nil // a temporary would take a default type, x's may differ
		}
	}
	pos := a.Pos()
	n := len(a.Lhs)
	if a.Tok != token.ASSIGN {
		n = 1 // x op= y
	}
	if len(a.Rhs) > 1 {
		n = len(a.Rhs)
	}
	var temps, uses []ast.Expr
	for i := 0; i < n; i++ {
		name := "_pnt" + strconv.Itoa(sp.n)
		sp.n++
		temps = append(temps, ident(pos, name))
		uses = append(uses, ident(pos, name))
	}
	block := &ast.BlockStmt{Lbrace: pos, Rbrace: a.End(), List: []ast.Stmt{
		&ast.AssignStmt{Lhs: temps, TokPos: a.TokPos, Tok: token.DEFINE, Rhs: a.Rhs},
	}}
	if top && n > 1 {
		// yaegi loses the second variable of a multi-value := in a block of
		// top-level code (see package rewrite's compound-defines pass): run
		// the block as a function, whose frame stops for good once the cell
		// is interrupted.
		block.List = append(block.List, &ast.AssignStmt{Lhs: a.Lhs, TokPos: a.TokPos, Tok: a.Tok, Rhs: uses})
		lit := &ast.FuncLit{Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}}, Body: block}
		return &ast.ExprStmt{X: &ast.CallExpr{Fun: lit, Lparen: pos, Rparen: a.End()}}
	}
	if top {
		lit := &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.FormatInt(sp.gen, 10)}
		block.List = append(block.List, &ast.ExprStmt{X: hookCall(pos, "Check", lit)})
	}
	block.List = append(block.List, &ast.AssignStmt{Lhs: a.Lhs, TokPos: a.TokPos, Tok: a.Tok, Rhs: uses})
	return block
}

// callsMethod reports whether exprs call x.M(...) with x not a package
// whose functions are guarded, outside function literals.
func (sp *splitter) callsMethod(exprs []ast.Expr) bool {
	return rewrite.AnyOutsideFuncLits(func(x ast.Node) bool {
		if call, ok := x.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				id, ok := sel.X.(*ast.Ident)
				return !ok || !sp.packages[id.Name]
			}
		}
		return false
	}, exprs...)
}

// mayBeUntyped reports whether e may be an untyped value, whose type the
// assignment's left side would decide: a comparison, a shift of a constant,
// constants and arithmetic on them.
func mayBeUntyped(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit, *ast.Ident:
		return true
	case *ast.ParenExpr:
		return mayBeUntyped(e.X)
	case *ast.UnaryExpr:
		return e.Op == token.NOT || mayBeUntyped(e.X)
	case *ast.BinaryExpr:
		switch e.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			return true
		case token.SHL, token.SHR:
			return mayBeUntyped(e.X)
		}
		return mayBeUntyped(e.X) && mayBeUntyped(e.Y)
	}
	return false
}

// hasCall reports whether exprs contain a call outside function literals.
func hasCall(exprs []ast.Expr) bool {
	return rewrite.AnyOutsideFuncLits(func(x ast.Node) bool {
		_, ok := x.(*ast.CallExpr)
		return ok
	}, exprs...)
}
