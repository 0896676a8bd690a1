package session

import (
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"strconv"
	"strings"
)

// yaegi hands a panic value of a cell's own type to the session as a value
// of its underlying Go type: panic(Code(3)) arrives as the int 3, and a
// struct loses its Error and String methods. So a panic whose argument
// names its type (a conversion T(x), a literal T{…} or &T{…} of a type the
// session declared) is rewritten to note, just before panicking, the type's
// name and the text of its Error or String method:
//
//	panic(E{"boom"})  →  { _pnp := E{"boom"}; _pnrt.NotePanic("main.E", _pnp.Error(), _pnp); panic(_pnp) }
//
// The panic value itself is unchanged, so recover sees what Go would give.
// A panic of a variable (panic(err)) keeps yaegi's view: its type is not
// known before the cell is compiled.

// panicNote is what NotePanic recorded for the latest such panic.
type panicNote struct {
	typ   string // "main.E"
	text  string // the value's Error or String, "" for neither
	value any    // the value as yaegi passes it, to match the panic's
	kind  string // "Error", "String" or ""
}

// notePanic records a note; generated code calls it just before panicking.
func (h *hooks) notePanic(typ, text string, kind string, v any) {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	h.s.panicNote = &panicNote{typ: typ, text: text, value: v, kind: kind}
}

// takePanicNote returns and forgets the note of the panic whose value is v,
// nil when the latest note is of another value.
func (s *Session) takePanicNote(v any) *panicNote {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.panicNote
	s.panicNote = nil
	if n == nil || !reflect.DeepEqual(n.value, v) {
		return nil
	}
	return n
}

// userTypes lists the types the session and the code n declare, with the
// methods among Error and String each has.
func (s *Session) userTypes(n ast.Node) map[string]map[string]bool {
	types := map[string]map[string]bool{}
	s.mu.Lock()
	for k := range s.defined {
		if name, ok := strings.CutPrefix(k, "type "); ok && types[name] == nil {
			types[name] = map[string]bool{}
		}
	}
	for k := range s.defined {
		if m, ok := strings.CutPrefix(k, "method "); ok {
			if t, meth, ok := strings.Cut(m, "."); ok && types[t] != nil {
				types[t][meth] = true
			}
		}
	}
	s.mu.Unlock()
	ast.Inspect(n, func(x ast.Node) bool {
		if ts, ok := x.(*ast.TypeSpec); ok && types[ts.Name.Name] == nil {
			types[ts.Name.Name] = map[string]bool{}
		}
		return true
	})
	ast.Inspect(n, func(x ast.Node) bool {
		if fd, ok := x.(*ast.FuncDecl); ok && fd.Recv != nil {
			if m := types[recvTypeName(fd.Recv)]; m != nil {
				m[fd.Name.Name] = true
			}
		}
		return true
	})
	return types
}

// notedPanic returns the rewriting of st when it is a panic of a value
// whose type names a type of types, nil otherwise.
func notedPanic(st ast.Stmt, types map[string]map[string]bool) ast.Stmt {
	es, ok := st.(*ast.ExprStmt)
	if !ok {
		return nil
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 || call.Ellipsis.IsValid() {
		return nil
	}
	if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "panic" {
		return nil
	}
	arg := call.Args[0]
	var name string
	switch a := ast.Unparen(arg).(type) {
	case *ast.CallExpr: // a conversion T(x)
		if id, ok := a.Fun.(*ast.Ident); ok && len(a.Args) == 1 {
			name = id.Name
		}
	case *ast.CompositeLit:
		if id, ok := a.Type.(*ast.Ident); ok {
			name = id.Name
		}
	case *ast.UnaryExpr:
		if lit, ok := a.X.(*ast.CompositeLit); ok && a.Op == token.AND {
			if id, ok := lit.Type.(*ast.Ident); ok {
				name = "*" + id.Name
			}
		}
	}
	methods := types[strings.TrimPrefix(name, "*")]
	if methods == nil {
		return nil
	}
	pos := call.Pos()
	v := func() *ast.Ident { return ident(pos, "_pnp") }
	text, kind := ast.Expr(&ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: `""`}), ""
	for _, m := range []string{"Error", "String"} {
		if methods[m] {
			text = &ast.CallExpr{Fun: &ast.SelectorExpr{X: v(), Sel: ident(pos, m)}, Lparen: pos, Rparen: pos}
			kind = m
			break
		}
	}
	str := func(s string) ast.Expr {
		return &ast.BasicLit{ValuePos: pos, Kind: token.STRING, Value: strconv.Quote(s)}
	}
	typ := "main." + strings.TrimPrefix(name, "*")
	if strings.HasPrefix(name, "*") {
		typ = "*" + typ
	}
	return &ast.BlockStmt{Lbrace: pos, Rbrace: call.End(), List: []ast.Stmt{
		&ast.AssignStmt{Lhs: []ast.Expr{v()}, TokPos: pos, Tok: token.DEFINE, Rhs: []ast.Expr{arg}},
		&ast.ExprStmt{X: hookCall(pos, "NotePanic", str(typ), text, str(kind), v())},
		&ast.ExprStmt{X: &ast.CallExpr{Fun: call.Fun, Lparen: call.Lparen, Args: []ast.Expr{v()}, Rparen: call.Rparen}},
	}}
}

// describeNoted formats a panic value that NotePanic described: its Error
// or String text, or the value with its type's name, as Go prints it
// (main.Code(3) for a number, string or bool, the value and its type for
// others).
func describeNoted(n *panicNote, v any) string {
	if n.kind != "" {
		return n.text
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return fmt.Sprintf("%s(%v)", n.typ, v)
	case reflect.String:
		return fmt.Sprintf("%s(%q)", n.typ, v)
	}
	return fmt.Sprintf("%v (%s)", v, n.typ)
}
