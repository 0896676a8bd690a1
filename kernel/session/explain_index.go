package session

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strings"
)

// The interpreter indexes slices, arrays and strings through reflection,
// whose panic names neither the index nor the length ("reflect: slice
// index out of range"), where compiled Go says "index out of range [21]
// with length 4". The session cannot see the values of the failing
// expression in general: they are in the interpreter's frame, gone once
// the panic has unwound it. Where the failing statement is a top-level
// statement of the cell, though, every name it uses is a session variable,
// still there after the panic: indexDetail evaluates the index expressions
// of that statement built of such variables, constants, len and arithmetic,
// and names the index and the length of the one out of range.

// indexDetail returns " [i] with length n" for the panic that ch unwound,
// when its innermost frame is the cell's top-level code, stopped at a
// statement of one line that starts an item of the cell, and exactly one of
// the statement's index expressions can be evaluated and is out of range;
// "" otherwise.
func (s *Session) indexDetail(ch *panicChain) string {
	if ch == nil || len(ch.frames) == 0 || len(ch.frames[0].compiled) > 0 {
		return ""
	}
	s.mu.Lock()
	f := ch.frames[0]
	if f.site <= 0 || f.site >= len(s.sites) {
		s.mu.Unlock()
		return ""
	}
	st, cell := s.sites[f.site], s.cell
	s.mu.Unlock()
	if st.fn != "main" || st.wrapper || st.cell == nil || st.cell != cell {
		return ""
	}
	stmt := topLevelLine(cell.code, st.line, st.col)
	if stmt == "" {
		return ""
	}
	file, err := parser.ParseFile(token.NewFileSet(), "", "package p; func _() {\n"+stmt+"\n}", 0)
	if err != nil {
		return ""
	}
	globals := s.globals()
	var found []string
	ast.Inspect(file, func(n ast.Node) bool {
		ix, ok := n.(*ast.IndexExpr)
		if !ok {
			return true
		}
		seq, ok := globalSeq(ix.X, globals)
		if !ok {
			return true
		}
		i, ok := evalInt(ix.Index, globals)
		if ok && (i < 0 || i >= int64(seq.Len())) {
			found = append(found, fmt.Sprintf(" [%d] with length %d", i, seq.Len()))
		}
		return true
	})
	if len(found) != 1 {
		return ""
	}
	return found[0]
}

// topLevelLine returns the text of the cell's line line from column col
// when the statement there starts an item of the cell (so that it is not in
// a block, where names may stand for block variables), "" otherwise.
func topLevelLine(code string, line, col int) string {
	lines := strings.Split(code, "\n")
	if line < 1 || line > len(lines) || col < 1 || col > len(lines[line-1])+1 {
		return ""
	}
	off := len(strings.Join(lines[:line-1], "\n")) + col - 1
	if line > 1 {
		off++ // the newline before the line
	}
	for _, it := range splitCell(code) {
		if start := it.start + len(code[it.start:it.end]) - len(strings.TrimLeft(code[it.start:it.end], " \t\r\n")); start == off {
			if it.kind != itemStmt {
				return ""
			}
			return lines[line-1][col-1:]
		}
	}
	return ""
}

// globalSeq evaluates x when it is a session variable (or a field of one)
// holding a slice, an array, a pointer to an array or a string.
func globalSeq(x ast.Expr, globals map[string]reflect.Value) (reflect.Value, bool) {
	var v reflect.Value
	switch x := ast.Unparen(x).(type) {
	case *ast.Ident:
		g, ok := globals[x.Name]
		if !ok {
			return reflect.Value{}, false
		}
		v = g
	case *ast.SelectorExpr:
		base, ok := globalSeqBase(x.X, globals)
		if !ok {
			return reflect.Value{}, false
		}
		if base.Kind() == reflect.Pointer && !base.IsNil() {
			base = base.Elem()
		}
		if base.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		v = base.FieldByName(x.Sel.Name)
	default:
		return reflect.Value{}, false
	}
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Array {
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array, reflect.String:
		return v, true
	}
	return reflect.Value{}, false
}

// globalSeqBase evaluates the variable a selector starts from.
func globalSeqBase(x ast.Expr, globals map[string]reflect.Value) (reflect.Value, bool) {
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return reflect.Value{}, false
	}
	v, ok := globals[id.Name]
	if ok && v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	return v, ok && v.IsValid()
}

// evalInt evaluates an index built of integer literals, integer session
// variables, len of session variables and + - * / %.
func evalInt(e ast.Expr, globals map[string]reflect.Value) (int64, bool) {
	switch e := ast.Unparen(e).(type) {
	case *ast.BasicLit:
		return constInt(e)
	case *ast.Ident:
		v, ok := globals[e.Name]
		if !ok || !v.CanInt() {
			return 0, false
		}
		return v.Int(), true
	case *ast.CallExpr:
		if builtinName(e) != "len" || len(e.Args) != 1 {
			return 0, false
		}
		v, ok := globalSeq(e.Args[0], globals)
		return int64(v.Len()), ok
	case *ast.UnaryExpr:
		x, ok := evalInt(e.X, globals)
		if !ok || e.Op != token.SUB {
			return 0, false
		}
		return -x, true
	case *ast.BinaryExpr:
		x, okx := evalInt(e.X, globals)
		y, oky := evalInt(e.Y, globals)
		if !okx || !oky {
			return 0, false
		}
		switch e.Op {
		case token.ADD:
			return x + y, true
		case token.SUB:
			return x - y, true
		case token.MUL:
			return x * y, true
		case token.QUO, token.REM:
			if y == 0 {
				return 0, false
			}
			if e.Op == token.QUO {
				return x / y, true
			}
			return x % y, true
		}
	}
	return 0, false
}
