package rewrite

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
	"strings"
)

// rangeFunc returns the statement that does what the range over the
// iterator function rs does (see rewriteRanges), or nil when the session
// cannot rewrite it, with the reason. yield is the type of the iterator's
// yield function; n makes the names of the generated variables unique.
func rangeFunc(rs rangeSlot, yield *types.Signature, info *types.Info, qualify types.Qualifier, n int) (ast.Stmt, string) {
	r := rs.rng
	pos := r.For
	id := func(name string) *ast.Ident { return Ident(pos, name) }
	suffix := strconv.Itoa(n)

	// The parameters of the yield literal, and the assignments of an = range.
	var params []*ast.Field
	var prefix []ast.Stmt
	vars := []ast.Expr{r.Key, r.Value}
	if n := yield.Params().Len(); (n < 2 && r.Value != nil) || (n < 1 && r.Key != nil) {
		return nil, fmt.Sprintf("the iterator gives %d value(s) an iteration, fewer than the loop's variables", n)
	}
	for i := 0; i < yield.Params().Len(); i++ {
		typ := typeExpr(yield.Params().At(i).Type(), qualify, pos)
		if typ == nil {
			return nil, "the type of its values is unknown, or from a package the session has not imported"
		}
		name := "_"
		if v := vars[i]; v != nil && !isBlank(v) {
			if r.Tok == token.DEFINE {
				name = v.(*ast.Ident).Name
			} else {
				name = "_pnV" + suffix + "_" + strconv.Itoa(i)
				prefix = append(prefix, &ast.AssignStmt{Lhs: []ast.Expr{v}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{id(name)}})
			}
		}
		params = append(params, &ast.Field{Names: []*ast.Ident{id(name)}, Type: typ})
	}

	// The results of the function around the loop, for its returns.
	b := &branches{pos: pos, flag: "_pnRet" + suffix, done: "_pnDone" + suffix, inner: innerLabels(r.Body)}
	if rs.label != nil {
		b.label = rs.label.Name
	}
	var resultDecls []ast.Stmt
	if sig := funcSignature(rs.fn, info); sig != nil && sig.Results().Len() > 0 {
		res := sig.Results()
		if res.At(0).Name() != "" && res.At(0).Name() != "_" {
			for i := 0; i < res.Len(); i++ {
				b.results = append(b.results, res.At(i).Name())
			}
			b.named = true
		} else {
			for i := 0; i < res.Len(); i++ {
				name := "_pnR" + suffix + "_" + strconv.Itoa(i)
				typ := typeExpr(res.At(i).Type(), qualify, pos)
				if typ == nil {
					return nil, "the results of the function around it are unknown"
				}
				b.results = append(b.results, name)
				resultDecls = append(resultDecls, varDecl(pos, name, typ))
			}
		}
	} else if sig == nil && rs.fn != nil && hasReturnValues(r.Body) {
		return nil, "the results of the function around it are unknown"
	}
	if !b.list(r.Body.List, false, false) {
		return nil, b.why
	}

	body := &ast.BlockStmt{Lbrace: r.Body.Lbrace, Rbrace: r.Body.Rbrace}
	if b.stops {
		// As Go does, stop an iterator that goes on after the loop ended.
		msg := &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote("range function continued iteration after function for loop body returned false")}
		prefix = append([]ast.Stmt{&ast.IfStmt{If: pos, Cond: id(b.done), Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{
			&ast.ExprStmt{X: &ast.CallExpr{Fun: id("panic"), Lparen: pos, Args: []ast.Expr{msg}, Rparen: pos}},
		}}}}, prefix...)
	}
	body.List = append(prefix, r.Body.List...)
	body.List = append(body.List, &ast.ReturnStmt{Return: r.Body.Rbrace, Results: []ast.Expr{Ident(r.Body.Rbrace, "true")}})
	boolType := func() ast.Expr { return id("bool") }
	lit := &ast.FuncLit{
		Type: &ast.FuncType{Func: pos, Params: &ast.FieldList{Opening: pos, List: params, Closing: pos},
			Results: &ast.FieldList{List: []*ast.Field{{Type: boolType()}}}},
		Body: body,
	}
	call := &ast.ExprStmt{X: &ast.CallExpr{Fun: r.X, Lparen: pos, Args: []ast.Expr{lit}, Rparen: pos}}
	out := &ast.BlockStmt{Lbrace: pos, Rbrace: r.End()}
	if b.stops {
		out.List = append(out.List, varDecl(pos, b.done, boolType()))
	}
	if !b.returns {
		out.List = append(out.List, call)
		return out, ""
	}
	out.List = append(out.List, varDecl(pos, b.flag, boolType()))
	out.List = append(out.List, resultDecls...)
	ret := &ast.ReturnStmt{Return: pos}
	if !b.named {
		for _, name := range b.results {
			ret.Results = append(ret.Results, id(name))
		}
	}
	out.List = append(out.List, call, &ast.IfStmt{If: pos, Cond: id(b.flag),
		Body: &ast.BlockStmt{Lbrace: pos, List: []ast.Stmt{ret}, Rbrace: pos}})
	return out, ""
}

// branches rewrites the statements of the body of a range over a function
// that leave an iteration: continue becomes return true, break return
// false, and return sets flag (and the results) and returns false.
type branches struct {
	pos     token.Pos
	label   string          // the label of the loop, if any
	inner   map[string]bool // labels inside the body
	flag    string          // the variable set by a return
	done    string          // the variable set when the loop ends early
	stops   bool            // the body ends the loop early (break or return)
	results []string        // the enclosing function's named results or the variables for its results
	named   bool            // results are the function's named results
	returns bool            // the body has a return
	why     string          // what the body does that cannot be rewritten
}

// list rewrites a statement list; inLoop and inBreak tell whether it is in
// a nested loop, or a nested statement that break ends. It reports false
// when a statement leaves the body in a way it cannot rewrite.
func (b *branches) list(list []ast.Stmt, inLoop, inBreak bool) bool {
	for i := range list {
		st, ok := b.stmt(list[i], inLoop, inBreak)
		if !ok {
			return false
		}
		list[i] = st
	}
	return true
}

func (b *branches) block(bl *ast.BlockStmt, inLoop, inBreak bool) bool {
	return bl == nil || b.list(bl.List, inLoop, inBreak)
}

// stmt rewrites one statement.
func (b *branches) stmt(st ast.Stmt, inLoop, inBreak bool) (ast.Stmt, bool) {
	ok := true
	switch s := st.(type) {
	case *ast.BlockStmt:
		ok = b.block(s, inLoop, inBreak)
	case *ast.IfStmt:
		ok = b.block(s.Body, inLoop, inBreak)
		if ok && s.Else != nil {
			s.Else, ok = b.stmt(s.Else, inLoop, inBreak)
		}
	case *ast.ForStmt:
		ok = b.block(s.Body, true, true)
	case *ast.RangeStmt:
		ok = b.block(s.Body, true, true)
	case *ast.SwitchStmt:
		ok = b.clauses(s.Body, inLoop)
	case *ast.TypeSwitchStmt:
		ok = b.clauses(s.Body, inLoop)
	case *ast.SelectStmt:
		ok = b.clauses(s.Body, inLoop)
	case *ast.CaseClause:
		ok = b.list(s.Body, inLoop, inBreak)
	case *ast.CommClause:
		ok = b.list(s.Body, inLoop, inBreak)
	case *ast.LabeledStmt:
		s.Stmt, ok = b.stmt(s.Stmt, inLoop, inBreak)
	case *ast.DeferStmt:
		b.why = "its body has a defer, which would run at the end of each iteration"
		return st, false
	case *ast.BranchStmt:
		st, ok := b.branch(s, inLoop, inBreak)
		if !ok {
			b.why = "its body leaves it by a goto or a labelled break or continue to an outer statement"
		}
		return st, ok
	case *ast.ReturnStmt:
		return b.ret(s), true
	}
	return st, ok
}

func (b *branches) clauses(body *ast.BlockStmt, inLoop bool) bool {
	return b.list(body.List, inLoop, true)
}

// branch rewrites a break or continue of the loop itself.
func (b *branches) branch(s *ast.BranchStmt, inLoop, inBreak bool) (ast.Stmt, bool) {
	if s.Label != nil && b.inner[s.Label.Name] {
		return s, true
	}
	if s.Label != nil && s.Label.Name != b.label {
		return s, false // to a statement outside the loop
	}
	pos := s.Pos()
	switch s.Tok {
	case token.CONTINUE:
		if s.Label == nil && inLoop {
			return s, true
		}
		return &ast.ReturnStmt{Return: pos, Results: []ast.Expr{Ident(pos, "true")}}, true
	case token.BREAK:
		if s.Label == nil && inBreak {
			return s, true
		}
		return &ast.BlockStmt{Lbrace: pos, Rbrace: s.End(), List: b.stop(pos)}, true
	}
	return s, s.Tok == token.FALLTHROUGH
}

// ret rewrites a return of the function around the loop.
func (b *branches) ret(s *ast.ReturnStmt) ast.Stmt {
	pos := s.Pos()
	b.returns = true
	out := &ast.BlockStmt{Lbrace: pos, Rbrace: s.End()}
	if len(s.Results) > 0 {
		var lhs []ast.Expr
		for _, name := range b.results {
			lhs = append(lhs, Ident(pos, name))
		}
		out.List = append(out.List, &ast.AssignStmt{Lhs: lhs, TokPos: pos, Tok: token.ASSIGN, Rhs: s.Results})
	}
	out.List = append(out.List, &ast.AssignStmt{Lhs: []ast.Expr{Ident(pos, b.flag)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{Ident(pos, "true")}})
	out.List = append(out.List, b.stop(pos)...)
	return out
}

// stop returns the statements that end the loop: done = true; return false.
func (b *branches) stop(pos token.Pos) []ast.Stmt {
	b.stops = true
	return []ast.Stmt{
		&ast.AssignStmt{Lhs: []ast.Expr{Ident(pos, b.done)}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{Ident(pos, "true")}},
		&ast.ReturnStmt{Return: pos, Results: []ast.Expr{Ident(pos, "false")}},
	}
}

// innerLabels returns the labels declared in body, outside function literals.
func innerLabels(body *ast.BlockStmt) map[string]bool {
	labels := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.LabeledStmt:
			labels[n.Label.Name] = true
		}
		return true
	})
	return labels
}

// hasReturnValues reports whether body returns values, outside function
// literals.
func hasReturnValues(body *ast.BlockStmt) bool {
	return AnyOutsideFuncLits(func(n ast.Node) bool {
		r, ok := n.(*ast.ReturnStmt)
		return ok && len(r.Results) > 0
	}, body)
}

// funcSignature returns the type of function fn, or nil when unknown.
func funcSignature(fn ast.Node, info *types.Info) *types.Signature {
	var t types.Type
	switch fn := fn.(type) {
	case *ast.FuncDecl:
		if obj := info.Defs[fn.Name]; obj != nil {
			t = obj.Type()
		}
	case *ast.FuncLit:
		t = info.Types[fn].Type
	}
	sig, _ := t.(*types.Signature)
	return sig
}

// varDecl returns var name typ.
func varDecl(pos token.Pos, name string, typ ast.Expr) ast.Stmt {
	return &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: pos, Tok: token.VAR, Specs: []ast.Spec{
		&ast.ValueSpec{Names: []*ast.Ident{Ident(pos, name)}, Type: typ},
	}}}
}

// typeExpr returns the expression of type t as the cell would write it,
// with every position pos, or nil when it has none (an invalid type).
func typeExpr(t types.Type, qualify types.Qualifier, pos token.Pos) ast.Expr {
	if t == nil || !validType(t) {
		return nil
	}
	e, err := parser.ParseExpr(types.TypeString(t, qualify))
	if err != nil {
		return nil
	}
	setPositions(e, pos)
	return e
}

// validType reports whether t holds no invalid type.
func validType(t types.Type) bool {
	return !strings.Contains(types.TypeString(t, nil), "invalid type")
}

// setPositions gives every position in n the value pos.
func setPositions(n ast.Node, pos token.Pos) {
	posType := reflect.TypeOf(token.NoPos)
	walkFields(n, func(v reflect.Value) {
		if v.Type() == posType {
			v.Set(reflect.ValueOf(pos))
		}
	})
}
