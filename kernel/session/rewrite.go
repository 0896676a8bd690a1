package session

import (
	"go/ast"
	"go/token"
	"strconv"
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
		case *ast.CallExpr:
			typeMinMax(n)
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
			call.Args[i] = &ast.CallExpr{Fun: ident(a.Pos(), "float64"), Lparen: a.Pos(), Args: []ast.Expr{a}, Rparen: a.End()}
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
			call.Args[0] = ident(first.Pos(), name.Name)
			list = append(list, &ast.AssignStmt{Lhs: []ast.Expr{ident(name.Pos(), name.Name)}, TokPos: st.Pos(), Tok: token.ASSIGN, Rhs: []ast.Expr{call}})
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

func ident(pos token.Pos, name string) *ast.Ident { return &ast.Ident{NamePos: pos, Name: name} }

// anyOutsideFuncLits reports whether match holds for a node of roots,
// leaving out what function literals hold: their bodies run when they are
// called, not where they stand. The walk stops at the first match.
func anyOutsideFuncLits[N ast.Node](match func(ast.Node) bool, roots ...N) bool {
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
func wrapCompound(body *ast.BlockStmt) {
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
}

// hasMultiDefine reports whether st contains, outside nested function
// literals, a := of several variables from one expression.
func hasMultiDefine(st ast.Stmt) bool {
	return anyOutsideFuncLits(func(n ast.Node) bool {
		a, ok := n.(*ast.AssignStmt)
		return ok && a.Tok == token.DEFINE && len(a.Lhs) > 1 && len(a.Rhs) == 1
	}, st)
}

// leavesStatement reports whether st contains, outside nested function
// literals, a return, a goto, or a break or continue with a label.
func leavesStatement(st ast.Stmt) bool {
	return anyOutsideFuncLits(func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ReturnStmt:
			return true
		case *ast.BranchStmt:
			return n.Tok == token.GOTO || n.Label != nil
		}
		return false
	}, st)
}
