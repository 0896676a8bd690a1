package session

import (
	"errors"
	"fmt"
	"go/ast"
	"go/scanner"
	"go/token"
	"strings"

	"github.com/pathnotes/pathnotes/kernel/session/internal/rewrite"
)

// compileError turns an error of the parser or of yaegi's compiler into a
// CellError, with a hint for the interpreter's known gaps.
func compileError(err error) *CellError {
	var ce *CellError
	if errors.As(err, &ce) {
		return ce
	}
	var list scanner.ErrorList
	if errors.As(err, &list) {
		e := &CellError{Name: "SyntaxError", Value: list[0].Error()}
		if strings.Contains(list[0].Msg, "redeclared") {
			e.Name = "CompileError"
		}
		for _, x := range list {
			e.Traceback = append(e.Traceback, x.Error())
		}
		return e
	}
	msg := err.Error()
	return &CellError{Name: "CompileError", Value: msg + hint(msg)}
}

// hint explains compile errors that come from features yaegi 0.16.1 lacks
// (the hints of package rewrite's passes) or from the session's one scope.
func hint(msg string) string {
	if h := rewrite.Hint(msg); h != "" {
		return h
	}
	if strings.Contains(msg, "redeclared in this block") {
		return " (names of imports, types and functions share the session's scope)"
	}
	return ""
}

// explain improves the message of a compile error of piece n where yaegi's
// own message misleads: for a top-level x := y with y undefined, yaegi says
// "constant definition loop"; the session then names the undefined
// identifier itself.
// It says the same for variables whose initializers name each other (var
// u = v; var v = u); the session then names the cycle.
func (s *Session) explain(n ast.Node, err error) error {
	ce, ok := err.(*CellError)
	if !ok || ce.Name != "CompileError" {
		return err
	}
	if !strings.Contains(ce.Value, "constant definition loop") {
		return err
	}
	// yaegi's report of variables whose initializers name each other, too.
	if cycle := varCycle(n); cycle != nil {
		names := make([]string, len(cycle))
		for i, id := range cycle {
			names[i] = id.Name
		}
		return &CellError{Name: "CompileError", Value: fmt.Sprintf("%s: initialization cycle: %s refers to %s",
			s.in.FileSet().Position(cycle[0].Pos()), strings.Join(names, " refers to "), cycle[0].Name)}
	}
	if id := s.undefinedIdent(n); id != nil {
		return &CellError{Name: "CompileError", Value: fmt.Sprintf("%s: undefined: %s",
			s.in.FileSet().Position(id.Pos()), id.Name)}
	}
	return err
}

// undefinedIdent returns the first identifier used in n that nothing
// declares: not n itself, not an earlier cell, not an import, not Go.
func (s *Session) undefinedIdent(n ast.Node) *ast.Ident {
	declared := map[string]bool{}
	declare := func(ids ...*ast.Ident) {
		for _, id := range ids {
			if id != nil {
				declared[id.Name] = true
			}
		}
	}
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						declare(id)
					}
				}
			}
		case *ast.RangeStmt:
			if x.Tok == token.DEFINE {
				for _, e := range []ast.Expr{x.Key, x.Value} {
					if id, ok := e.(*ast.Ident); ok {
						declare(id)
					}
				}
			}
		case *ast.ValueSpec:
			declare(x.Names...)
		case *ast.TypeSpec:
			declare(x.Name)
		case *ast.FuncDecl:
			declare(x.Name)
		case *ast.Field:
			declare(x.Names...)
		case *ast.LabeledStmt:
			declare(x.Label)
		case *ast.ImportSpec:
			declare(x.Name)
		}
		return true
	})
	globals := s.globals()
	predecl := map[string]bool{}
	for _, n := range append(append([]string{}, predeclared...), "_") {
		predecl[n] = true
	}
	known := func(name string) bool {
		_, isGlobal := globals[name]
		_, isDecl := s.decls[name]
		_, isImport := s.imports[name]
		return declared[name] || isGlobal || isDecl || isImport || predecl[name] ||
			strings.HasPrefix(name, "_pn") || name == runtimeName
	}
	var found *ast.Ident
	var visit func(ast.Node) bool
	visit = func(x ast.Node) bool {
		if found != nil {
			return false
		}
		switch x := x.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(x.X, visit)
			return false
		case *ast.KeyValueExpr:
			if _, ok := x.Key.(*ast.Ident); !ok { // a struct field name is no use of a name
				ast.Inspect(x.Key, visit)
			}
			ast.Inspect(x.Value, visit)
			return false
		case *ast.BranchStmt:
			return false
		case *ast.Ident:
			if !known(x.Name) {
				found = x
			}
		}
		return true
	}
	ast.Inspect(n, visit)
	return found
}

// genericHint adds to a compile error of code that calls a generic function
// declared in the session a word on yaegi's limited inference of type
// arguments, and the workaround.
func (s *Session) genericHint(code string, err error) error {
	ce, ok := err.(*CellError)
	if !ok || ce.Name != "CompileError" {
		return err
	}
	for name, d := range s.decls {
		if d.kind == "func" && strings.HasPrefix(d.sig[strings.Index(d.sig, "func "+name)+len("func "+name):], "[") &&
			strings.Contains(code, name+"(") {
			ce.Value += fmt.Sprintf(" (%s is generic and the interpreter's inference of type arguments is limited: "+
				"write them out, as in %s[int](...))", name, name)
			return ce
		}
	}
	return err
}

// varCycle returns the variables of a cycle among n's var declarations
// (outside function literals) whose initializers name each other directly
// (u = v, v = u), in order, or nil. Names inside function literals and the
// keys of composite literals are not counted, as they may name something
// else.
func varCycle(n ast.Node) []*ast.Ident {
	refs := map[string][]string{}
	decl := map[string]*ast.Ident{}
	var order []string
	var gens []*ast.GenDecl
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.FuncLit:
			return false
		case *ast.GenDecl:
			if x.Tok == token.VAR {
				gens = append(gens, x)
			}
		}
		return true
	})
	for _, g := range gens {
		for _, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			var used []string
			var collect func(n ast.Node) bool
			collect = func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.FuncLit:
					return false
				case *ast.SelectorExpr: // not the selected name
					ast.Inspect(x.X, collect)
					return false
				case *ast.KeyValueExpr: // not a key, which may be a field name
					ast.Inspect(x.Value, collect)
					return false
				case *ast.Ident:
					used = append(used, x.Name)
				}
				return true
			}
			for _, v := range vs.Values {
				ast.Inspect(v, collect)
			}
			for _, id := range vs.Names {
				decl[id.Name] = id
				refs[id.Name] = used
				order = append(order, id.Name)
			}
		}
	}
	// Depth-first search; state 1 is on the path, 2 is done.
	state := map[string]int{}
	var path []string
	var found []string
	var visit func(v string) bool
	visit = func(v string) bool {
		state[v] = 1
		path = append(path, v)
		for _, w := range refs[v] {
			if decl[w] == nil {
				continue
			}
			switch state[w] {
			case 1:
				for i, p := range path {
					if p == w {
						found = append([]string(nil), path[i:]...)
					}
				}
				return true
			case 0:
				if visit(w) {
					return true
				}
			}
		}
		path = path[:len(path)-1]
		state[v] = 2
		return false
	}
	for _, name := range order {
		if state[name] == 0 && visit(name) {
			cycle := make([]*ast.Ident, len(found))
			for i, v := range found {
				cycle[i] = decl[v]
			}
			return cycle
		}
	}
	return nil
}
