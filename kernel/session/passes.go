package session

import (
	"context"
	"errors"
	"go/ast"
	"go/token"
	"reflect"

	"github.com/pathnotes/pathnotes/kernel/session/internal/rewrite"
)

// The session hands every piece of a cell to the passes of package rewrite,
// which turn Go that yaegi 0.16.1 cannot run into Go it runs: right after
// the piece is parsed (parseFile, parseBody), before its declarations are
// compiled (runDecls) and as it is instrumented for compiling (instrument).
// rewriteEnv is what they ask of the session.

// ident returns the identifier name at pos.
var ident = rewrite.Ident

// rewriteEnv is the session as the rewrite passes see it.
type rewriteEnv struct{ s *Session }

func (e rewriteEnv) FileSet() *token.FileSet           { return e.s.in.FileSet() }
func (e rewriteEnv) Imports() map[string]string        { return e.s.imports }
func (e rewriteEnv) Globals() map[string]reflect.Value { return e.s.globals() }

func (e rewriteEnv) Decl(name string) (rewrite.Decl, bool) {
	d := e.s.decls[name]
	if d == nil {
		return rewrite.Decl{}, false
	}
	return rewrite.Decl{Kind: d.kind, Sig: d.sig, Full: d.full}, true
}

func (e rewriteEnv) Decls(f func(name string, d rewrite.Decl)) {
	for name, d := range e.s.decls {
		f(name, rewrite.Decl{Kind: d.kind, Sig: d.sig, Full: d.full})
	}
}

func (e rewriteEnv) Package(path string) (string, map[string]reflect.Value, bool) {
	info := e.s.pkgs[path]
	if info == nil {
		return "", nil, false
	}
	return info.name, info.syms, true
}

func (e rewriteEnv) CompileDecls(src string) error {
	return e.s.runGeneratedDecls(context.Background(), src)
}

// rewriteError turns the error of a pass into the cell's compile error.
func rewriteError(err error) error {
	var re *rewrite.Error
	if errors.As(err, &re) {
		return &CellError{Name: "CompileError", Value: re.Error()}
	}
	return err
}

// stdNames turns the names of the session's standard functions in the
// message of a cell error back into the names the cell uses (see
// rewrite.StdNames).
func stdNames(err error) error {
	ce, ok := err.(*CellError)
	if !ok {
		return err
	}
	ce.Value = rewrite.StdNames(ce.Value)
	for i, l := range ce.Traceback {
		ce.Traceback[i] = rewrite.StdNames(l)
	}
	return ce
}

// runLate runs late var declarations as top-level statements.
func (s *Session) runLate(ctx context.Context, late []*ast.GenDecl) error {
	body := &ast.BlockStmt{Lbrace: late[0].Pos(), Rbrace: late[len(late)-1].End()}
	for _, g := range late {
		body.List = append(body.List, &ast.DeclStmt{Decl: g})
	}
	n0 := s.prepareStmts(body)
	prog, err := s.compile(body)
	if err != nil {
		return s.explain(body, err)
	}
	defer s.dropTemporaries(body, n0)
	return s.execute(ctx, prog)
}
