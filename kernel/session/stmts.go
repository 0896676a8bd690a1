package session

import (
	"context"
	"go/ast"
	"go/token"
	"reflect"

	"github.com/pathnotes/pathnotes/kernel/session/internal/rewrite"
)

// runStmts runs statements in the session's global scope.
//
// yaegi gives a variable declared again (x := ... in a later cell) a new
// slot and keeps the old one, value included, for good: re-running a cell
// that makes a big matrix would leak it each time. So a top-level x := e
// whose variables all exist already becomes x = e when that compiles (same
// or assignable types): the variable keeps its slot, and functions that use
// it see the new value, as a notebook user expects. Otherwise the old slots
// are cleared once the new ones exist.
func (s *Session) runStmts(ctx context.Context, code string, p piece) error {
	src := span(code, p)
	body, err := s.parseBody(src)
	if err != nil {
		return err
	}
	old := s.redeclared(body)
	if len(old) > 0 {
		assign, err := s.parseBody(src)
		if err != nil {
			return err
		}
		if asAssignments(assign, old) {
			n0 := s.prepareStmts(assign)
			if prog, err := s.compile(assign); err == nil {
				defer s.dropTemporaries(assign, n0)
				return s.execute(ctx, prog)
			}
		}
	}
	n0 := s.prepareStmts(body)
	prog, err := s.compile(body)
	if err != nil {
		return s.explain(body, err)
	}
	defer s.dropTemporaries(body, n0)
	defer s.clearMoved(old)
	return s.execute(ctx, prog)
}

// prepareStmts rewrites top-level cell statements for the interpreter
// (the Compile stage's passes, instrumentation, the statement checks and
// line marks) and returns the number of frame slots before they compile,
// for dropTemporaries.
func (s *Session) prepareStmts(body *ast.BlockStmt) int {
	s.instrument(&rewrite.Piece{Node: body, Top: body}, true)
	checkStatements(body, s.hooks.gen.Load())
	s.markLines(body, true)
	return len(frameData(s.in))
}

// dropTemporaries releases the global slots that the top-level code n added
// from index n0 on and that hold no session variable: kept, they would hold
// every intermediate value of every cell (fmt.Println(len(bigResult())))
// for the life of the session. Code with function literals or go
// statements is left alone: a closure or goroutine that outlives the cell
// may use a block variable of the cell's top level, which lives there too.
func (s *Session) dropTemporaries(n ast.Node, n0 int) {
	if len(frameData(s.in)) <= n0 {
		return // no slot added
	}
	closures := false
	ast.Inspect(n, func(x ast.Node) bool {
		switch x.(type) {
		case *ast.FuncLit, *ast.GoStmt:
			closures = true
		}
		return !closures
	})
	if closures {
		return
	}
	keep := map[uintptr]bool{}
	for _, v := range s.globals() {
		if v.IsValid() && v.CanAddr() {
			keep[v.UnsafeAddr()] = true
		}
	}
	releaseSlots(frameData(s.in), n0, func(addr uintptr) bool { return !keep[addr] })
}

// redeclared returns the session variables that the top-level statements
// of body declare again, with their current slots.
func (s *Session) redeclared(body *ast.BlockStmt) map[string]reflect.Value {
	var old map[string]reflect.Value
	var globals map[string]reflect.Value
	for _, st := range body.List {
		a, ok := st.(*ast.AssignStmt)
		if !ok || a.Tok != token.DEFINE {
			continue
		}
		for _, l := range a.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok || id.Name == "_" {
				continue
			}
			if globals == nil {
				globals = s.globals()
			}
			if v, ok := globals[id.Name]; ok && v.CanSet() {
				if old == nil {
					old = map[string]reflect.Value{}
				}
				old[id.Name] = v
			}
		}
	}
	return old
}

// asAssignments turns the top-level := of body whose variables are all in
// old into =, and reports whether it turned any.
func asAssignments(body *ast.BlockStmt, old map[string]reflect.Value) bool {
	turned := false
	for _, st := range body.List {
		a, ok := st.(*ast.AssignStmt)
		if !ok || a.Tok != token.DEFINE {
			continue
		}
		all := true
		for _, l := range a.Lhs {
			if id, ok := l.(*ast.Ident); !ok || (id.Name != "_" && !hasKey(old, id.Name)) {
				all = false
			}
		}
		if all {
			a.Tok = token.ASSIGN
			turned = true
		}
	}
	return turned
}

func hasKey(m map[string]reflect.Value, k string) bool {
	_, ok := m[k]
	return ok
}

// clearMoved releases the old slots of variables that now live in new
// ones, so that their values can be collected.
func (s *Session) clearMoved(old map[string]reflect.Value) {
	if len(old) == 0 {
		return
	}
	now := s.globals()
	moved := map[uintptr]bool{}
	for name, v := range old {
		if n, ok := now[name]; ok && n.CanAddr() && v.CanAddr() && n.UnsafeAddr() == v.UnsafeAddr() {
			continue // same slot: still in use
		}
		if v.CanAddr() {
			moved[v.UnsafeAddr()] = true
		}
	}
	releaseSlots(frameData(s.in), 0, func(addr uintptr) bool { return moved[addr] })
}
