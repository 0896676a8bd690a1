package session

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"math"
	"math/bits"
	"reflect"
	"strings"

	"github.com/traefik/yaegi/interp"

	"github.com/pathnotes/pathnotes/internal/memlimit"
)

// A cell that asks for more memory than there is must fail with an error,
// as Python's MemoryError does: Go's runtime ends the process instead
// ("fatal error: out of memory"), with no panic that a recover could stop,
// when the system refuses the memory of an allocation (make, append,
// new, a composite literal) of up to 256 TiB; only larger requests panic
// ("makeslice: len out of range"). So the session checks the size of what
// a cell allocates against the memory left (memlimit.Check) before the
// allocation, where the size is not a small constant:
//
//   - make(T, n) and make(T, n, c) of a slice or channel: the last size,
//     times the element's size, through _pnrt.MakeLen(T(nil), n). Where n
//     has no side effects, the check is a statement before the one holding
//     the make, if int64(n) > 1024 { _pnrt.MakeLen(T(nil), n) }, which
//     costs a comparison per make; otherwise the size argument becomes
//     _pnrt.MakeLen(T(nil), n), which returns n.
//   - append(s, ...) with s free of side effects: before the statement,
//     if cap(s)-len(s) < k { _pnrt.Grow(s, k) }, k the number of values (or
//     len(t) for append(s, t...); len(s) == cap(s) for one value): a
//     comparison per append, and a call only when the slice grows, which
//     checks the array that append will allocate.
//   - array types: an array of a constant length larger than the memory
//     left is refused when the cell is compiled (checkArrays), which covers
//     new([N]T), var a [N]T and [N]T{} (pointers to such arrays are not
//     allocations and pass).
//   - strings.Repeat and bytes.Repeat are replaced in the standard library's
//     symbol table by versions that check first (repeatSymbols); slices.Repeat
//     and slices.Grow are the session's own (stdslices.go), so their make
//     and append are checked as a cell's are.
//
// What is left unchecked: sizes the session cannot see (an append whose
// slice is an expression with side effects, string concatenation,
// allocations inside compiled code such as gonum's), and arrays whose
// length is not a constant of the cell. Those can still end the kernel;
// the kernel then writes why to its log (package kernel, crash.go).

// makeCheckFrom is the count of elements above which a make's size is
// checked: smaller ones cost less than the check would.
const makeCheckFrom = 1024

// memoryError is the panic of an allocation that would not fit, reported as
// a MemoryError.
type memoryError struct {
	what string // the allocation, e.g. "make([]uint8, 32212254720)"
	err  error
}

func (e memoryError) Error() string { return e.what + ": " + e.err.Error() }

func (e memoryError) Unwrap() error { return e.err }

// checkNeed panics with a memoryError when count elements of size bytes
// each do not fit in the memory left.
func checkNeed(what func() string, count, size uint64) {
	hi, need := bits.Mul64(count, size)
	if hi != 0 {
		need = math.MaxUint64
	}
	if err := memlimit.Check(need); err != nil {
		panic(memoryError{what(), err})
	}
}

// makeLen checks make(T, n), sample being T(nil), and returns n as an int.
func (h *hooks) makeLen(sample, n any) int {
	count, ok := toCount(n)
	if !ok || count < makeCheckFrom {
		return int(count)
	}
	t := reflect.TypeOf(sample)
	if t == nil || t.Kind() != reflect.Slice && t.Kind() != reflect.Chan {
		return int(count)
	}
	checkNeed(func() string { return fmt.Sprintf("make(%s, %d)", t, count) }, uint64(count), uint64(t.Elem().Size()))
	return int(count)
}

// toCount converts a size argument of make to an int64; ok is false for a
// negative size or a value of no integer kind, which make itself rejects.
func toCount(n any) (int64, bool) {
	v := reflect.ValueOf(n)
	switch {
	case v.CanInt():
		return v.Int(), v.Int() >= 0
	case v.CanUint():
		return int64(min(v.Uint(), math.MaxInt64)), true
	case v.CanFloat(): // an untyped constant such as 1e9
		f := v.Float()
		return int64(min(f, math.MaxInt64)), f >= 0
	}
	return 0, false
}

// grow checks the array that append(s, k values) allocates when s is full:
// Go's growth rule (runtime.nextslicecap) gives its capacity.
func (h *hooks) grow(s any, k int) {
	v := reflect.ValueOf(s)
	if v.Kind() != reflect.Slice || k <= 0 {
		return
	}
	old, length := v.Cap(), v.Len()
	if k > math.MaxInt-length || length+k <= old {
		return
	}
	newLen := length + k
	newCap := old
	switch {
	case newLen > 2*old:
		newCap = newLen
	case old < 256:
		newCap = 2 * old
	default:
		for newCap < newLen {
			newCap += (newCap + 3*256) >> 2
		}
	}
	size := uint64(v.Type().Elem().Size())
	if uint64(newCap)*size < memlimit.CheckFrom && newCap < math.MaxInt32 {
		return
	}
	checkNeed(func() string {
		return fmt.Sprintf("append growing %s of capacity %d to %d", v.Type(), old, newCap)
	}, uint64(newCap), size)
}

// repeatSymbols replaces strings.Repeat and bytes.Repeat in the
// interpreter's standard library by versions that check their result's
// size first.
func repeatSymbols() interp.Exports {
	return interp.Exports{
		"strings/strings": {"Repeat": reflect.ValueOf(func(s string, count int) string {
			checkRepeat("strings", len(s), count)
			return strings.Repeat(s, count)
		})},
		"bytes/bytes": {"Repeat": reflect.ValueOf(func(b []byte, count int) []byte {
			checkRepeat("bytes", len(b), count)
			return bytes.Repeat(b, count)
		})},
	}
}

// checkRepeat checks pkg.Repeat of a value of n bytes, count times.
func checkRepeat(pkg string, n, count int) {
	if n > 0 && count > 0 {
		checkNeed(func() string { return fmt.Sprintf("%s.Repeat(%d bytes, %d)", pkg, n, count) }, uint64(n), uint64(count))
	}
}

// allocChecks turns the checks of make and append on; BenchmarkAllocChecks
// turns them off to measure what they cost.
var allocChecks = true

// guardAllocs inserts the checks of make and append (see above) in n.
func guardAllocs(n ast.Node) {
	if !allocChecks {
		return
	}
	var lists []*[]ast.Stmt
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.BlockStmt:
			lists = append(lists, &x.List)
		case *ast.CaseClause:
			lists = append(lists, &x.Body)
		case *ast.CommClause:
			lists = append(lists, &x.Body)
		}
		return true
	})
	for _, l := range lists {
		checkAllocs(l)
	}
	if f, ok := n.(*ast.File); ok {
		checkDeclAllocs(f)
	}
}

// checkAllocs inserts the checks of make and append (see above) into the
// statement list at *list, for the statements of the list itself: nested
// blocks are lists of their own.
func checkAllocs(list *[]ast.Stmt) {
	var out []ast.Stmt
	for i, st := range *list {
		var checks []ast.Stmt
		allocSites(st, func(call *ast.CallExpr, inLoopHeader bool) {
			switch builtinName(call) {
			case "make":
				if c := checkMake(call, inLoopHeader); c != nil {
					checks = append(checks, c)
				}
			case "append":
				if c := checkAppend(call); c != nil && !inLoopHeader {
					checks = append(checks, c)
				}
			}
		})
		if checks != nil && out == nil {
			out = append(make([]ast.Stmt, 0, len(*list)+len(checks)), (*list)[:i]...)
		}
		if out != nil {
			out = append(append(out, checks...), st)
		}
	}
	if out != nil {
		*list = out
	}
}

// checkDeclAllocs checks the make calls of the package-level declarations
// of f, which are not statements: their sizes are wrapped in place.
func checkDeclAllocs(f *ast.File) {
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		ast.Inspect(g, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.FuncLit:
				return false // instrument checks its body
			case *ast.CallExpr:
				if builtinName(x) == "make" {
					checkMake(x, true)
				}
			}
			return true
		})
	}
}

// allocSites calls f for each call of st outside nested blocks, clauses and
// function literals; inLoopHeader tells the calls of a for statement's
// condition and post statement, which run again at each iteration.
func allocSites(st ast.Stmt, f func(call *ast.CallExpr, inLoopHeader bool)) {
	var walk func(n ast.Node, header bool)
	walk = func(n ast.Node, header bool) {
		ast.Inspect(n, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause, *ast.FuncLit:
				return false // lists of their own, or run elsewhere
			case *ast.ForStmt:
				if x.Init != nil {
					walk(x.Init, header)
				}
				for _, h := range []ast.Node{x.Cond, x.Post} {
					if h != nil {
						walk(h, true)
					}
				}
				return false // the body is a list of its own
			case *ast.CallExpr:
				f(x, header)
			}
			return true
		})
	}
	walk(st, false)
}

// builtinName returns the name of the function call calls when it is an
// identifier, "" otherwise.
func builtinName(call *ast.CallExpr) string {
	if id, ok := call.Fun.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// checkMake returns the statement that checks make call before it runs, or
// nil when the check is not needed or is made inline: a size with side
// effects, or one in a loop header, is wrapped in place.
func checkMake(call *ast.CallExpr, inLoopHeader bool) ast.Stmt {
	if len(call.Args) < 2 || call.Ellipsis.IsValid() {
		return nil
	}
	if _, isMap := ast.Unparen(call.Args[0]).(*ast.MapType); isMap {
		return nil // Go bounds a map's size hint itself
	}
	last := len(call.Args) - 1
	n := call.Args[last]
	if v, ok := constInt(n); ok && v <= makeCheckFrom {
		return nil
	}
	pos := n.Pos()
	sample := &ast.CallExpr{Fun: call.Args[0], Lparen: pos, Args: []ast.Expr{ident(pos, "nil")}, Rparen: pos}
	if inLoopHeader || !sideEffectFree(n) {
		call.Args[last] = hookCall(pos, "MakeLen", sample, n)
		return nil
	}
	big := &ast.BinaryExpr{
		X:  &ast.CallExpr{Fun: ident(pos, "int64"), Lparen: pos, Args: []ast.Expr{n}, Rparen: pos},
		Op: token.GTR, OpPos: pos,
		Y: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: fmt.Sprint(makeCheckFrom)},
	}
	return &ast.IfStmt{If: pos, Cond: big, Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos,
		List: []ast.Stmt{&ast.ExprStmt{X: hookCall(pos, "MakeLen", sample, n)}}}}
}

// checkAppend returns the statement that checks the growth of append call
// before it runs, or nil when its slice or spread argument has side
// effects.
func checkAppend(call *ast.CallExpr) ast.Stmt {
	if len(call.Args) < 2 || !sideEffectFree(call.Args[0]) {
		return nil
	}
	s := call.Args[0]
	pos := s.Pos()
	var k ast.Expr = &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: fmt.Sprint(len(call.Args) - 1)}
	if call.Ellipsis.IsValid() {
		t := call.Args[1]
		if !sideEffectFree(t) {
			return nil
		}
		k = builtinCall(pos, "len", t)
	}
	// len(s) == cap(s) for one value, cap(s)-len(s) < k otherwise: the
	// interpreter pays for each operation.
	var full ast.Expr = &ast.BinaryExpr{X: builtinCall(pos, "len", s), Op: token.EQL, OpPos: pos, Y: builtinCall(pos, "cap", s)}
	if len(call.Args) != 2 || call.Ellipsis.IsValid() {
		room := &ast.BinaryExpr{X: builtinCall(pos, "cap", s), Op: token.SUB, OpPos: pos, Y: builtinCall(pos, "len", s)}
		full = &ast.BinaryExpr{X: room, Op: token.LSS, OpPos: pos, Y: k}
	}
	return &ast.IfStmt{If: pos, Cond: full,
		Body: &ast.BlockStmt{Lbrace: pos, Rbrace: pos, List: []ast.Stmt{&ast.ExprStmt{X: hookCall(pos, "Grow", s, k)}}}}
}

// builtinCall returns name(arg).
func builtinCall(pos token.Pos, name string, arg ast.Expr) *ast.CallExpr {
	return &ast.CallExpr{Fun: ident(pos, name), Lparen: pos, Args: []ast.Expr{arg}, Rparen: pos}
}

// sideEffectFree reports whether evaluating e twice gives the same value
// and changes nothing: names, literals, selectors, indexing, dereferences,
// operators, len and cap, and conversions to a predeclared type of such
// expressions.
func sideEffectFree(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return sideEffectFree(e.X)
	case *ast.SelectorExpr:
		return sideEffectFree(e.X)
	case *ast.IndexExpr:
		return sideEffectFree(e.X) && sideEffectFree(e.Index)
	case *ast.StarExpr:
		return sideEffectFree(e.X)
	case *ast.UnaryExpr:
		return e.Op != token.ARROW && e.Op != token.AND && sideEffectFree(e.X)
	case *ast.BinaryExpr:
		return sideEffectFree(e.X) && sideEffectFree(e.Y)
	case *ast.CallExpr:
		id, ok := e.Fun.(*ast.Ident)
		if !ok || len(e.Args) != 1 || e.Ellipsis.IsValid() {
			return false
		}
		return (id.Name == "len" || id.Name == "cap" || basicSizes[id.Name] > 0) && sideEffectFree(e.Args[0])
	}
	return false
}

// constInt evaluates e when it is an integer constant written with
// literals and operators (1 << 20, 30<<30, 1e9).
func constInt(e ast.Expr) (int64, bool) {
	v := constValue(e)
	if v == nil {
		return 0, false
	}
	v = constant.ToInt(v)
	if v.Kind() != constant.Int {
		return 0, false
	}
	if x, exact := constant.Int64Val(v); exact {
		return x, true
	}
	if constant.Sign(v) > 0 {
		return math.MaxInt64, true
	}
	return 0, false
}

// constValue evaluates a constant expression of literals, nil otherwise.
func constValue(e ast.Expr) constant.Value {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.INT && e.Kind != token.FLOAT {
			return nil
		}
		v := constant.MakeFromLiteral(e.Value, e.Kind, 0)
		if v.Kind() == constant.Unknown {
			return nil
		}
		return v
	case *ast.ParenExpr:
		return constValue(e.X)
	case *ast.UnaryExpr:
		x := constValue(e.X)
		if x == nil || (e.Op != token.SUB && e.Op != token.ADD && e.Op != token.XOR) {
			return nil
		}
		if e.Op == token.XOR && x.Kind() != constant.Int {
			return nil
		}
		return constant.UnaryOp(e.Op, x, 0)
	case *ast.BinaryExpr:
		x, y := constValue(e.X), constValue(e.Y)
		if x == nil || y == nil {
			return nil
		}
		switch e.Op {
		case token.SHL, token.SHR:
			s, ok := constant.Uint64Val(constant.ToInt(y))
			if !ok || s > 1<<10 || constant.ToInt(x).Kind() != constant.Int {
				return nil
			}
			return constant.Shift(constant.ToInt(x), e.Op, uint(s))
		case token.ADD, token.SUB, token.MUL:
			return constant.BinaryOp(x, e.Op, y)
		case token.QUO, token.REM, token.AND, token.OR, token.XOR, token.AND_NOT:
			if constant.Sign(y) == 0 && (e.Op == token.QUO || e.Op == token.REM) {
				return nil
			}
			if e.Op == token.QUO && x.Kind() == constant.Int && y.Kind() == constant.Int {
				return constant.BinaryOp(x, token.QUO_ASSIGN, y) // integer division
			}
			if e.Op != token.QUO && (x.Kind() != constant.Int || y.Kind() != constant.Int) {
				return nil
			}
			return constant.BinaryOp(x, e.Op, y)
		}
	}
	return nil
}

// basicSizes are the sizes in bytes of the predeclared types.
var basicSizes = map[string]uint64{
	"bool": 1, "byte": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2,
	"int32": 4, "uint32": 4, "rune": 4, "float32": 4,
	"int": 8, "uint": 8, "int64": 8, "uint64": 8, "uintptr": 8, "float64": 8, "complex64": 8,
	"complex128": 16, "string": 16,
}

// checkArrays returns a MemoryError when n holds an array type of a
// constant length that is larger than the memory left; what the type
// costs is counted low (a named element type counts one byte). Pointers to
// arrays are left alone.
func (s *Session) checkArrays(n ast.Node) error {
	var found error
	ast.Inspect(n, func(x ast.Node) bool {
		if found != nil {
			return false
		}
		switch x := x.(type) {
		case *ast.StarExpr:
			if _, ok := x.X.(*ast.ArrayType); ok {
				return false // *[N]T: a pointer, not an array
			}
		case *ast.ArrayType:
			size := minSize(x)
			if size < memlimit.CheckFrom {
				return true
			}
			if err := memlimit.Check(size); err != nil {
				found = &CellError{Name: "MemoryError", Value: fmt.Sprintf("%s: an array of %s: %v",
					s.in.FileSet().Position(x.Pos()), memlimit.FormatBytes(size), err)}
			}
			return false
		}
		return true
	})
	return found
}

// minSize is the least size of a value of type expression t: exact for
// predeclared types and arrays of them, a lower bound otherwise.
func minSize(t ast.Expr) uint64 {
	switch t := t.(type) {
	case *ast.ParenExpr:
		return minSize(t.X)
	case *ast.Ident:
		if b, ok := basicSizes[t.Name]; ok {
			return b
		}
		return 1
	case *ast.ArrayType:
		if t.Len == nil {
			return 24 // a slice header
		}
		n, ok := constInt(t.Len)
		if !ok || n < 0 {
			return 1
		}
		hi, lo := bits.Mul64(uint64(n), minSize(t.Elt))
		if hi != 0 {
			return math.MaxUint64
		}
		return lo
	case *ast.StructType:
		total := uint64(0)
		for _, f := range t.Fields.List {
			k := uint64(max(len(f.Names), 1))
			hi, lo := bits.Mul64(k, minSize(f.Type))
			if hi != 0 || total+lo < total {
				return math.MaxUint64
			}
			total += lo
		}
		return total
	case *ast.StarExpr, *ast.MapType, *ast.ChanType, *ast.FuncType:
		return 8
	case *ast.InterfaceType:
		return 16
	}
	return 1
}
