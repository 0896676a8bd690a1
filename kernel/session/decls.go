package session

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"strings"

	"github.com/pathnotes/pathnotes/kernel/session/internal/rewrite"
)

// runDecls compiles declarations. Types and methods cannot be redefined in
// yaegi (it silently keeps the first definition), so a declaration that
// changes one is an error, and one that repeats it unchanged (a cell run
// again) is dropped.
func (s *Session) runDecls(ctx context.Context, code string, p piece) error {
	src := span(code, p)
	f, err := s.parseFile(src)
	if err != nil {
		return err
	}
	full := "package main;" + src + "\n"
	base := s.in.FileSet().File(f.Package).Base()
	text := func(n ast.Node) string {
		return normalize(full[int(n.Pos())-base : int(n.End())-base])
	}
	pending := map[string]string{}
	var decls []ast.Decl
	var assigns []*ast.GenDecl // var declarations of existing variables
	var runMain bool
	globals := s.globals()
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.VAR && declaresAgain(d, globals) {
				assigns = append(assigns, d)
				continue
			}
			if d.Tok == token.TYPE {
				var specs []ast.Spec
				for _, spec := range d.Specs {
					ts := spec.(*ast.TypeSpec)
					key := "type " + ts.Name.Name
					keep, err := s.checkRedefinition(key, text(ts), ts.Pos())
					if err != nil {
						return err
					}
					if keep {
						specs = append(specs, spec)
						pending[key] = text(ts)
					}
				}
				if len(specs) == 0 {
					continue
				}
				d.Specs = specs
			}
			decls = append(decls, d)
		case *ast.FuncDecl:
			if d.Recv != nil {
				key := "method " + recvTypeName(d.Recv) + "." + d.Name.Name
				keep, err := s.checkRedefinition(key, text(d), d.Pos())
				if err != nil {
					return err
				}
				if !keep {
					continue
				}
				pending[key] = text(d)
			} else if d.Name.Name == "main" && d.Type.Params.NumFields() == 0 && d.Type.Results.NumFields() == 0 {
				// A pasted program: run its main, as go run would. yaegi
				// would run a function named main before every later piece.
				d.Name.Name = "_pnmain"
				runMain = true
			}
			decls = append(decls, d)
		}
	}
	f.Decls = decls
	late := &rewrite.Piece{File: f}
	if err := s.rw.Run(rewrite.Declarations, late); err != nil {
		return rewriteError(err)
	}
	decls = f.Decls
	if len(decls) > 0 {
		f.Decls = decls
		if err := s.compileDecls(ctx, f); err != nil {
			return err
		}
	}
	for _, d := range assigns {
		if err := s.assignVars(ctx, f, d); err != nil {
			return err
		}
	}
	if len(late.Late) > 0 {
		if err := s.runLate(ctx, late.Late); err != nil {
			return err
		}
		if len(late.Then) > 0 {
			then := *f
			then.Decls = late.Then
			if err := s.compileDecls(ctx, &then); err != nil {
				return err
			}
		}
		f.Decls = append(decls, late.Then...)
		for _, g := range late.Late {
			f.Decls = append(f.Decls, g)
		}
	}
	s.mu.Lock()
	for k, v := range pending {
		s.defined[k] = v
	}
	s.noteDecls(f, full, base)
	s.mu.Unlock()
	s.noteTypes(ctx, f)
	if runMain {
		return s.runGenerated(ctx, "_pnmain()")
	}
	return nil
}

// noteTypes records the reflect types of the (not generic) types that f
// declares, so that completion finds the methods of a value of one of
// them: an interpreted type has no methods in reflection (valueMembers).
func (s *Session) noteTypes(ctx context.Context, f *ast.File) {
	var b strings.Builder
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, spec := range g.Specs {
				if ts := spec.(*ast.TypeSpec); ts.TypeParams == nil && ts.Name.Name != "_" {
					fmt.Fprintf(&b, "%s.NoteType(%q, (*%s)(nil))\n", runtimeName, ts.Name.Name, ts.Name.Name)
				}
			}
		}
	}
	if b.Len() > 0 {
		s.runGenerated(ctx, b.String()) // best effort: completion lists fewer methods without it
	}
}

// compileDecls compiles and runs a file of declarations.
// Temporaries of var initializers are dropped, as those of statements are
// (see dropTemporaries), when the file declares nothing but variables.
func (s *Session) compileDecls(ctx context.Context, f *ast.File) error {
	s.instrument(&rewrite.Piece{Node: f}, false)
	s.markLines(f, false)
	old := s.redeclaredVars(f)
	n0 := len(frameData(s.in))
	prog, err := s.compile(f)
	if err != nil {
		return s.explain(f, err)
	}
	if onlyVars(f) {
		defer s.dropTemporaries(f, n0)
	}
	defer s.clearMoved(old)
	return s.execute(ctx, prog)
}

// onlyVars reports whether a file declares variables and nothing else.
func onlyVars(f *ast.File) bool {
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); !ok || g.Tok != token.VAR {
			return false
		}
	}
	return true
}

// declaresAgain reports whether a var declaration gives values to variables
// that all exist already: it can then be run as assignments, which keep the
// variables' slots (see runStmts).
func declaresAgain(d *ast.GenDecl, globals map[string]reflect.Value) bool {
	for _, spec := range d.Specs {
		vs := spec.(*ast.ValueSpec)
		if len(vs.Values) != len(vs.Names) {
			return false
		}
		for _, id := range vs.Names {
			if _, ok := globals[id.Name]; !ok && id.Name != "_" {
				return false
			}
		}
	}
	return true
}

// assignVars runs var declaration d of existing variables as assignments
// when they compile, as a declaration otherwise.
func (s *Session) assignVars(ctx context.Context, f *ast.File, d *ast.GenDecl) error {
	body := &ast.BlockStmt{Lbrace: d.Pos(), Rbrace: d.End()}
	for _, spec := range d.Specs {
		vs := spec.(*ast.ValueSpec)
		var lhs []ast.Expr
		for _, id := range vs.Names {
			lhs = append(lhs, id)
		}
		rhs := vs.Values
		if vs.Type != nil { // var x T = v keeps its type: x = T(v)
			rhs = nil
			for _, v := range vs.Values {
				rhs = append(rhs, &ast.CallExpr{Fun: &ast.ParenExpr{Lparen: v.Pos(), X: vs.Type, Rparen: v.Pos()}, Lparen: v.Pos(), Args: []ast.Expr{v}, Rparen: v.End()})
			}
		}
		body.List = append(body.List, &ast.AssignStmt{Lhs: lhs, TokPos: vs.Pos(), Tok: token.ASSIGN, Rhs: rhs})
	}
	s.instrument(&rewrite.Piece{Node: body}, true)
	s.markLines(body, true)
	n0 := len(frameData(s.in))
	if prog, err := s.compile(body); err == nil {
		defer s.dropTemporaries(body, n0)
		return s.execute(ctx, prog)
	}
	f.Decls = []ast.Decl{d}
	return s.compileDecls(ctx, f)
}

// redeclaredVars returns the session variables that the var declarations
// of f declare again, with their current slots.
func (s *Session) redeclaredVars(f *ast.File) map[string]reflect.Value {
	old := map[string]reflect.Value{}
	globals := s.globals()
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, spec := range g.Specs {
				for _, id := range spec.(*ast.ValueSpec).Names {
					if v, ok := globals[id.Name]; ok && v.CanSet() {
						old[id.Name] = v
					}
				}
			}
		}
	}
	return old
}

// checkRedefinition reports whether a declaration must be compiled: false
// when the session has the same one already, an error when it has another.
func (s *Session) checkRedefinition(key, text string, pos token.Pos) (bool, error) {
	prev, ok := s.defined[key]
	if !ok {
		return true, nil
	}
	if prev == text {
		return false, nil
	}
	return false, &CellError{Name: "CompileError", Value: fmt.Sprintf(
		"%s: %s is already defined differently in this session, and the interpreter (yaegi) cannot redefine types or methods: "+
			"it would keep the old definition. Use %%reset and run the cells again, or choose a new name",
		s.in.FileSet().Position(pos), key)}
}

// recvTypeName returns T for a receiver (t T), (t *T) or (t *T[K]).
func recvTypeName(fl *ast.FieldList) string {
	if len(fl.List) == 0 {
		return ""
	}
	e := fl.List[0].Type
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return fmt.Sprint(e)
		}
	}
}

// normalize collapses white space, so that a declaration run again with
// other indentation still counts as the same.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }
