package session

import (
	"go/ast"
	"go/token"
	"strconv"

	"github.com/pathnotes/pathnotes/kernel/session/internal/rewrite"
)

// The session rewrites the syntax tree of every piece of a cell before yaegi
// compiles it:
//
//   - every function body starts with _pnrt.Enter() and defer _pnrt.Leave(),
//     which bound the depth of interpreted calls: runaway recursion fails
//     with a clear error instead of overflowing the Go stack, which would
//     kill the kernel;
//   - every go statement recovers panics of the goroutine it starts, which
//     would also kill the kernel, and reports them on stderr;
//   - top-level statements of a cell are each preceded by _pnrt.Check(n),
//     which stops what is left of cell n once it has been interrupted;
//   - the sizes of make and append are checked before they allocate
//     (memory.go).
//
// Generated nodes take the position of the code they belong to: yaegi
// resolves imports by the file name of each node's position.

// instrument rewrites the function bodies and go statements in n. It
// collects first and rewrites after, so that generated code is not itself
// rewritten.
func instrument(n ast.Node) {
	guardAllocs(n)
	var bodies []*ast.BlockStmt
	var lists []*[]ast.Stmt
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body != nil {
				bodies = append(bodies, n.Body)
			}
		case *ast.FuncLit:
			bodies = append(bodies, n.Body)
		case *ast.BlockStmt:
			lists = append(lists, &n.List)
		case *ast.CaseClause:
			lists = append(lists, &n.Body)
		case *ast.CommClause:
			lists = append(lists, &n.Body)
		}
		return true
	})
	for _, l := range lists {
		rewriteGo(*l)
	}
	for _, b := range bodies {
		countDepth(b)
	}
}

// checkStatements puts _pnrt.Check(gen) before each statement of body but
// the first: a piece starts while its cell runs, so a check in front of it
// would always pass (and would cost a slot of the global frame).
func checkStatements(body *ast.BlockStmt, gen int64) {
	list := make([]ast.Stmt, 0, 2*len(body.List))
	for i, st := range body.List {
		if i > 0 {
			lit := &ast.BasicLit{ValuePos: st.Pos(), Kind: token.INT, Value: strconv.FormatInt(gen, 10)}
			list = append(list, &ast.ExprStmt{X: hookCall(st.Pos(), "Check", lit)})
		}
		list = append(list, st)
	}
	body.List = list
}

// countDepth makes body count itself in the session's call depth, and
// declares the variable that holds its current site (trace.go), which
// Leave reads as the function returns.
func countDepth(body *ast.BlockStmt) {
	pos := body.Lbrace
	body.List = append([]ast.Stmt{
		lineVarDecl(pos),
		&ast.ExprStmt{X: hookCall(pos, "Enter")},
		&ast.DeferStmt{Defer: pos, Call: hookCall(pos, "Leave", lineVarAddr(pos))},
	}, body.List...)
}

// rewriteGo rewrites the go statements of list so that their goroutines
// recover from panics. A function literal gets a deferred recover; for any
// other call, the function and arguments are evaluated first, as the go
// statement would, and the call is made from such a literal.
func rewriteGo(list []ast.Stmt) {
	for i, st := range list {
		g, ok := st.(*ast.GoStmt)
		if !ok {
			continue
		}
		pos := g.Go
		if lit, ok := g.Call.Fun.(*ast.FuncLit); ok {
			lit.Body.List = append([]ast.Stmt{goRecover(pos)}, lit.Body.List...)
			continue
		}
		var names, values []ast.Expr
		bind := func(prefix string, i int, e ast.Expr) ast.Expr {
			id := ident(pos, prefix+strconv.Itoa(i))
			names = append(names, id)
			values = append(values, e)
			return ident(pos, id.Name)
		}
		call := &ast.CallExpr{Fun: g.Call.Fun, Lparen: pos, Ellipsis: g.Call.Ellipsis, Rparen: pos}
		if id, ok := g.Call.Fun.(*ast.Ident); !ok || !builtins[id.Name] {
			call.Fun = bind("_pnf", 0, g.Call.Fun)
		}
		for j, a := range g.Call.Args {
			call.Args = append(call.Args, bind("_pna", j, a))
		}
		body := &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{goRecover(pos), &ast.ExprStmt{X: call}}, Rbrace: pos}
		countDepth(body)
		goSt := &ast.GoStmt{Go: pos, Call: &ast.CallExpr{
			Fun:    &ast.FuncLit{Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}}, Body: body},
			Lparen: pos, Rparen: pos,
		}}
		block := &ast.BlockStmt{Lbrace: pos, Rbrace: pos}
		if len(names) > 0 {
			block.List = append(block.List, &ast.AssignStmt{Lhs: names, TokPos: pos, Tok: token.DEFINE, Rhs: values})
		}
		block.List = append(block.List, goSt)
		list[i] = block
	}
}

// builtins are the predeclared functions, which cannot be used as values.
var builtins = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true,
	"delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true,
	"new": true, "panic": true, "print": true, "println": true, "real": true, "recover": true,
}

// goRecover returns: defer func() { if r := recover(); r != nil { _pnrt.GoPanic(r) } }()
func goRecover(pos token.Pos) ast.Stmt {
	r := func() *ast.Ident { return ident(pos, "_pnr") }
	recoverCall := &ast.CallExpr{Fun: ident(pos, "recover"), Lparen: pos, Rparen: pos}
	ifSt := &ast.IfStmt{
		If:   pos,
		Init: &ast.AssignStmt{Lhs: []ast.Expr{r()}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{recoverCall}},
		Cond: &ast.BinaryExpr{X: r(), OpPos: pos, Op: token.NEQ, Y: ident(pos, "nil")},
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: hookCall(pos, "GoPanic", r(), lineVarAddr(pos))}}, Rbrace: pos},
	}
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, Closing: pos}},
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{ifSt}, Rbrace: pos},
	}
	return &ast.DeferStmt{Defer: pos, Call: &ast.CallExpr{Fun: lit, Lparen: pos, Rparen: pos}}
}

// hookCall returns _pnrt.name(args...).
func hookCall(pos token.Pos, name string, args ...ast.Expr) *ast.CallExpr {
	return &ast.CallExpr{
		Fun:    &ast.SelectorExpr{X: ident(pos, runtimeName), Sel: ident(pos, name)},
		Lparen: pos, Args: args, Rparen: pos,
	}
}

// instrument runs the Compile stage's passes of package rewrite on p (which
// do not fail), rewrites its node as the package function instrument does,
// rewrites the panics of values of the session's types (see above), and
// splits the assignments of method calls (split.go). top tells whether the
// node is top-level code of the running cell rather than declarations.
func (s *Session) instrument(p *rewrite.Piece, top bool) {
	s.rw.Run(rewrite.Compile, p)
	n := p.Node
	instrument(n)
	s.splitMethodAssigns(n, top, s.hooks.gen.Load())
	types := s.userTypes(n)
	ast.Inspect(n, func(x ast.Node) bool {
		list := rewrite.StmtList(x)
		for i, st := range list {
			if b := notedPanic(st, types); b != nil {
				list[i] = b
			}
		}
		return true
	})
}
