package session

import (
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"strings"

	"github.com/pathnotes/pathnotes/kernel/session/internal/rewrite"
)

// yaegi 0.16.1 reports a panic at the position of the function (or cell)
// it unwinds, never at the failing statement: runCfg's recover reads a
// variable that its loop shadows. So the session records positions itself.
//
// Every function body declares a variable _pnlf (countDepth, rewrite.go),
// and top-level code uses the global _pnl of the prelude. Before each
// statement that may panic, markLines puts _pnlf = N (or _pnl = N), where N numbers a
// site: the cell, line and column of the statement and the function it is
// in. Statements that cannot panic (i++, s += x, a call-free comparison)
// get no marker, so tight loops pay little. Each function's deferred
// _pnrt.Leave(&_pnlf) hands its site to the session as it returns; yaegi
// then writes its "panic: main.f(...)" line for a frame that a panic
// unwinds, which pairs the frame with the site (tracestack.go).
//
// Positions come from the file set, which honours the line directives
// that pieces and rewrites carry: any rewrite that keeps its nodes'
// positions, or emits //line directives, keeps the cell's lines here.
// markLines runs last, on the tree yaegi compiles.
//
// Limits: a position is a statement's, not an expression's; the case
// expressions of a switch report the switch, and a for loop's post
// statement the last marked statement of the body. A frame whose deferred
// call panics is missing from the chain: yaegi skips the rest of its
// deferred calls, Leave included. Frames are paired with their sites in
// the order they unwind, which goroutines returning at the same moment
// may disturb: a frame whose site belongs to another function shows no
// line rather than a wrong one.

// lineVar is the name of the global variable that holds the site of
// top-level code, funcLineVar that of the variable each function declares
// for its own frame. They differ so that a function literal in a top-level
// var initializer (var v = func() int { ... }()) does not name the global:
// yaegi would count it as a dependency of the initializer and report a
// variable definition loop.
const (
	lineVar     = "_pnl"
	funcLineVar = "_pnlf"
)

// site is a statement that a marker numbers.
type site struct {
	cell      *cellSource
	line, col int
	fn        string // the function's name as the user knows it: "fact", "T.M", "fact.func1", "main"
	yaegiName string // the name yaegi writes in its panic lines: "main.fact", "main.fact.func"
	wrapper   bool   // a function literal the session made around top-level code or a go call
}

// cellSource is a cell the session has run: its number (the execution
// count shown as In[n]) and its text.
type cellSource struct {
	number int
	code   string
}

// markLines puts site markers in n, a piece of the running cell about to
// be compiled. top tells whether n's statements are top-level code.
func (s *Session) markLines(n ast.Node, top bool) {
	s.mu.Lock()
	cell := s.cell
	s.mu.Unlock()
	if cell == nil {
		return
	}
	m := &marker{s: s, cell: cell, fset: s.in.FileSet()}
	main := frameInfo{name: "main", yaegi: "main", site: lineVar}
	if b, ok := n.(*ast.BlockStmt); ok && top {
		m.list(&b.List, main)
	} else {
		m.walk(n, main)
	}
}

// frameInfo names the function whose statements are being marked.
type frameInfo struct {
	name, yaegi string
	wrapper     bool
	lits        *int   // function literals numbered so far in it
	site        string // the variable that holds its site: lineVar or funcLineVar
}

type marker struct {
	s    *Session
	cell *cellSource
	fset *token.FileSet
}

// walk marks the bodies of the functions declared or written in n, which
// is not itself a list of statements of fn.
func (m *marker) walk(n ast.Node, fn frameInfo) {
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncDecl:
			if x.Body == nil {
				return false
			}
			name := x.Name.Name
			if name == "_pnmain" {
				name = "main"
			}
			if x.Recv != nil {
				t := recvTypeName(x.Recv)
				if _, ptr := x.Recv.List[0].Type.(*ast.StarExpr); ptr {
					t = "(*" + t + ")"
				}
				name = t + "." + name
			}
			m.body(x.Body, frameInfo{name: name, yaegi: "main." + x.Name.Name})
			return false
		case *ast.FuncLit:
			m.body(x.Body, m.literal(x, fn))
			return false
		}
		return true
	})
}

// literal returns the frame of function literal x written in fn.
func (m *marker) literal(x *ast.FuncLit, fn frameInfo) frameInfo {
	// The session's own literals (rewrite.go) start their body where their
	// func keyword is; parsed ones cannot.
	if x.Body.Lbrace == x.Type.Func {
		return frameInfo{name: fn.name, yaegi: fn.yaegi + ".func", wrapper: true, lits: fn.lits, site: fn.site}
	}
	if fn.lits == nil {
		fn.lits = new(int)
	}
	*fn.lits++
	return frameInfo{name: fn.name + ".func" + strconv.Itoa(*fn.lits), yaegi: fn.yaegi + ".func"}
}

// body marks the statements of a function's body when the body has its own
// site variable (countDepth declares it first). Literals the session adds
// without one (the recover of a goroutine) share their caller's, and are
// left alone so as not to overwrite its site.
func (m *marker) body(b *ast.BlockStmt, fn frameInfo) {
	if len(b.List) > 0 {
		if d, ok := b.List[0].(*ast.DeclStmt); ok {
			if g, ok := d.Decl.(*ast.GenDecl); ok && len(g.Specs) == 1 {
				if vs, ok := g.Specs[0].(*ast.ValueSpec); ok && len(vs.Names) == 1 && vs.Names[0].Name == funcLineVar {
					fn.site = funcLineVar
					m.list(&b.List, fn)
					return
				}
			}
		}
	}
	m.exprs(fn, b)
}

// list marks the statements of *l, which run in fn, and the functions and
// blocks nested in them.
func (m *marker) list(l *[]ast.Stmt, fn frameInfo) {
	if fn.lits == nil {
		fn.lits = new(int)
	}
	out := make([]ast.Stmt, 0, len(*l))
	for _, st := range *l {
		if m.mayPanic(st) {
			if mk := m.markerFor(st.Pos(), fn); mk != nil {
				out = append(out, mk)
			}
		}
		m.nested(st, fn)
		out = append(out, st)
	}
	*l = out
}

// nested marks what statement st holds: blocks, clauses, function literals.
func (m *marker) nested(st ast.Stmt, fn frameInfo) {
	switch st := st.(type) {
	case *ast.BlockStmt:
		m.list(&st.List, fn)
	case *ast.LabeledStmt:
		m.nested(st.Stmt, fn)
	case *ast.IfStmt:
		m.exprs(fn, st.Init, st.Cond)
		m.list(&st.Body.List, fn)
		switch e := st.Else.(type) {
		case *ast.BlockStmt:
			m.list(&e.List, fn)
		case *ast.IfStmt:
			// else if: the condition gets its own marker.
			b := &ast.BlockStmt{Lbrace: e.Pos(), List: []ast.Stmt{e}, Rbrace: e.End()}
			m.list(&b.List, fn)
			st.Else = b
		}
	case *ast.ForStmt:
		m.exprs(fn, st.Init, st.Post)
		if st.Cond != nil && m.exprMayPanic(st.Cond) {
			// Checked before each iteration, after the body's markers:
			// for c { … } becomes for { _pnl = N; if !(c) { break }; … }.
			m.exprs(fn, st.Cond)
			check := &ast.IfStmt{If: st.Cond.Pos(),
				Cond: &ast.UnaryExpr{OpPos: st.Cond.Pos(), Op: token.NOT, X: &ast.ParenExpr{Lparen: st.Cond.Pos(), X: st.Cond, Rparen: st.Cond.End()}},
				Body: &ast.BlockStmt{Lbrace: st.Cond.Pos(), List: []ast.Stmt{&ast.BranchStmt{TokPos: st.Cond.Pos(), Tok: token.BREAK}}, Rbrace: st.Cond.End()}}
			m.list(&st.Body.List, fn)
			head := []ast.Stmt{check}
			if mk := m.markerFor(st.Cond.Pos(), fn); mk != nil {
				head = []ast.Stmt{mk, check}
			}
			st.Body.List = append(head, st.Body.List...)
			st.Cond = nil
			return
		}
		m.exprs(fn, st.Cond)
		m.list(&st.Body.List, fn)
	case *ast.RangeStmt:
		m.exprs(fn, st.X)
		m.list(&st.Body.List, fn)
	case *ast.SwitchStmt:
		m.exprs(fn, st.Init, st.Tag)
		for _, c := range st.Body.List {
			cc := c.(*ast.CaseClause)
			m.exprs(fn, exprNodes(cc.List)...)
			m.list(&cc.Body, fn)
		}
	case *ast.TypeSwitchStmt:
		m.exprs(fn, st.Init, st.Assign)
		for _, c := range st.Body.List {
			m.list(&c.(*ast.CaseClause).Body, fn)
		}
	case *ast.SelectStmt:
		for _, c := range st.Body.List {
			cc := c.(*ast.CommClause)
			m.exprs(fn, cc.Comm)
			m.list(&cc.Body, fn)
		}
	default:
		m.exprs(fn, st)
	}
}

// exprs marks the function literals inside nodes (nil ones are skipped).
func (m *marker) exprs(fn frameInfo, nodes ...ast.Node) {
	for _, n := range nodes {
		if n == nil {
			continue
		}
		ast.Inspect(n, func(x ast.Node) bool {
			if lit, ok := x.(*ast.FuncLit); ok {
				m.body(lit.Body, m.literal(lit, fn))
				return false
			}
			return true
		})
	}
}

func exprNodes(l []ast.Expr) []ast.Node {
	out := make([]ast.Node, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// markerFor returns _pnl = N for a new site at pos in fn, nil when pos is
// not in the cell.
func (m *marker) markerFor(pos token.Pos, fn frameInfo) ast.Stmt {
	p := m.fset.Position(pos)
	if p.Filename != cellName || p.Line == 0 {
		return nil
	}
	m.s.mu.Lock()
	if len(m.s.sites) == 0 {
		m.s.sites = append(m.s.sites, site{}) // 0 is no site
	}
	m.s.sites = append(m.s.sites, site{cell: m.cell, line: p.Line, col: p.Column, fn: fn.name, yaegiName: fn.yaegi, wrapper: fn.wrapper})
	n := len(m.s.sites) - 1
	m.s.mu.Unlock()
	return &ast.AssignStmt{Lhs: []ast.Expr{ident(pos, fn.site)}, TokPos: pos, Tok: token.ASSIGN,
		Rhs: []ast.Expr{&ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: strconv.Itoa(n)}}}
}

// mayPanic reports whether statement st may panic before the statements
// nested in it run (their own markers cover those).
func (m *marker) mayPanic(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.EmptyStmt, *ast.BranchStmt, *ast.BlockStmt, *ast.SelectStmt:
		return false
	case *ast.LabeledStmt:
		return m.mayPanic(st.Stmt)
	case *ast.DeclStmt:
		return m.exprMayPanic(st.Decl)
	case *ast.ExprStmt:
		if call, ok := st.X.(*ast.CallExpr); ok && isHook(call) {
			for _, a := range call.Args { // _pnrt.Show(f(x)) shows a cell's expression
				if m.exprMayPanic(a) {
					return true
				}
			}
			return false
		}
		return m.exprMayPanic(st.X)
	case *ast.IfStmt:
		return m.exprMayPanic(st.Init) || m.exprMayPanic(st.Cond)
	case *ast.ForStmt:
		return m.exprMayPanic(st.Init)
	case *ast.DeferStmt:
		return !isHook(st.Call)
	case *ast.SwitchStmt, *ast.RangeStmt, *ast.TypeSwitchStmt, *ast.GoStmt:
		return true
	}
	return m.exprMayPanic(st)
}

// isHook reports whether call calls one of the session's hooks.
func isHook(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == runtimeName && sel.Sel.Name != "NotePanic"
}

// safeCalls are the builtins that cannot panic.
var safeCalls = map[string]bool{"len": true, "cap": true, "append": true, "min": true, "max": true, "complex": true, "real": true, "imag": true}

// exprMayPanic reports whether n (outside the function literals in it) may
// panic: a call, an index or slice, a dereference, a field of a pointer, a
// type assertion, a division or shift by a variable, a send or a close.
func (m *marker) exprMayPanic(n ast.Node) bool {
	if n == nil {
		return false
	}
	return rewrite.AnyOutsideFuncLits(func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.CallExpr:
			id, ok := x.Fun.(*ast.Ident)
			return !ok || !safeCalls[id.Name]
		case *ast.IndexExpr, *ast.IndexListExpr, *ast.SliceExpr, *ast.StarExpr, *ast.TypeAssertExpr, *ast.SendStmt:
			return true
		case *ast.SelectorExpr:
			id, ok := x.X.(*ast.Ident)
			return !ok || !m.isPackage(id.Name)
		case *ast.BinaryExpr:
			switch x.Op {
			case token.QUO, token.REM, token.SHL, token.SHR:
				return !nonZeroLiteral(x.Y)
			}
		case *ast.AssignStmt:
			switch x.Tok {
			case token.QUO_ASSIGN, token.REM_ASSIGN, token.SHL_ASSIGN, token.SHR_ASSIGN:
				return !nonZeroLiteral(x.Rhs[0])
			}
		}
		return false
	}, n)
}

// isPackage reports whether name is an import of the session.
func (m *marker) isPackage(name string) bool {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	_, ok := m.s.imports[name]
	return ok || name == runtimeName
}

// nonZeroLiteral reports whether e is a number literal other than zero.
func nonZeroLiteral(e ast.Expr) bool {
	lit, ok := ast.Unparen(e).(*ast.BasicLit)
	if !ok || (lit.Kind != token.INT && lit.Kind != token.FLOAT) {
		return false
	}
	return strings.Trim(lit.Value, "0._xXoObB") != ""
}

// lineVarDecl returns var _pnlf int, a function's site variable.
func lineVarDecl(pos token.Pos) ast.Stmt {
	return &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{
		&ast.ValueSpec{Names: []*ast.Ident{ident(pos, funcLineVar)}, Type: ident(pos, "int")},
	}}}
}

// lineVarAddr returns &_pnlf.
func lineVarAddr(pos token.Pos) ast.Expr {
	return &ast.UnaryExpr{OpPos: pos, Op: token.AND, X: ident(pos, funcLineVar)}
}

// panicLine matches the lines yaegi writes to its stderr for each frame a
// panic unwinds: "cell:3:5: panic: main.f(...)".
var panicLine = regexp.MustCompile(`^(\S*:\d+:\d+): panic: (.*)\(\.\.\.\)\n?$`)
