package session

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log"
	"strconv"
	"strings"
	"sync"

	"github.com/pathnotes/pathnotes/kernel/session/internal/rewrite"
	"github.com/traefik/yaegi/interp"
)

// pieceKind is how a group of items is compiled.
type pieceKind int

const (
	pieceImport pieceKind = iota // import declarations, hoisted to the front
	pieceDecl                    // declarations, compiled as a file
	pieceStmt                    // statements, compiled as the body of main
	pieceExpr                    // the cell's trailing expression, whose value is shown
)

// piece is a run of consecutive items of one kind.
type piece struct {
	kind  pieceKind
	items []item
}

// groupItems orders a cell's items into pieces: all imports first, then runs
// of declarations and of statements in the cell's order, with a trailing
// expression on its own.
func groupItems(src string, items []item) []piece {
	var imports piece
	imports.kind = pieceImport
	var out []piece
	for _, it := range items {
		var k pieceKind
		switch it.kind {
		case itemPackage:
			continue
		case itemImport:
			imports.items = append(imports.items, it)
			continue
		case itemDecl:
			k = pieceDecl
		default:
			k = pieceStmt
		}
		if n := len(out); n > 0 && out[n-1].kind == k {
			out[n-1].items = append(out[n-1].items, it)
		} else {
			out = append(out, piece{kind: k, items: []item{it}})
		}
	}
	if n := len(out); n > 0 && out[n-1].kind == pieceStmt {
		last := &out[n-1]
		tail := last.items[len(last.items)-1]
		if !tail.stmt && isShownExpr(src[tail.start:tail.end]) {
			last.items = last.items[:len(last.items)-1]
			if len(last.items) == 0 {
				out = out[:n-1]
			}
			out = append(out, piece{kind: pieceExpr, items: []item{tail}})
		}
	}
	if len(imports.items) > 0 {
		out = append([]piece{imports}, out...)
	}
	return out
}

// isShownExpr reports whether stmt is an expression whose value the cell
// shows: any expression except calls of the print functions, whose byte
// counts nobody wants to see.
func isShownExpr(stmt string) bool {
	e, err := parser.ParseExpr(stmt)
	if err != nil {
		return false
	}
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return true
	}
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name != "print" && f.Name != "println"
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok && (x.Name == "fmt" || x.Name == "log") {
			n := f.Sel.Name
			return !strings.HasPrefix(n, "Print") && !strings.HasPrefix(n, "Fprint")
		}
	}
	return true
}

// runCode runs Go code (a cell without its magics) and returns the bundle of
// its trailing expression, if any.
func (s *Session) runCode(ctx context.Context, code string) (*Bundle, error) {
	var result *Bundle
	for _, p := range groupItems(code, splitCell(code)) {
		var err error
		switch p.kind {
		case pieceImport:
			err = s.runImports(ctx, code, p)
		case pieceDecl:
			err = s.runDecls(ctx, code, p)
		case pieceStmt:
			err = s.runStmts(ctx, code, p)
		case pieceExpr:
			result, err = s.runExpr(ctx, code, p)
		}
		if err != nil {
			return nil, s.genericHint(code, stdNames(err))
		}
	}
	return result, nil
}

// cellPositions writes the cell positions of err, when it is a *CellError,
// as tracebacks write them: "cell:3:5" (cellPos) becomes "Cell In[4], line
// 3, column 5", so that compile errors and runtime errors name places
// alike.
func (s *Session) cellPositions(err error) error {
	var ce *CellError
	s.mu.Lock()
	cell := s.cell
	s.mu.Unlock()
	if !errors.As(err, &ce) || cell == nil {
		return err
	}
	form := func(pos string) string {
		line, col, hasCol := strings.Cut(strings.TrimPrefix(pos, cellName+":"), ":")
		if hasCol {
			return fmt.Sprintf("Cell In[%d], line %s, column %s", cell.number, line, col)
		}
		return fmt.Sprintf("Cell In[%d], line %s", cell.number, line)
	}
	ce.Value = cellPos.ReplaceAllStringFunc(ce.Value, form)
	for i, l := range ce.Traceback {
		ce.Traceback[i] = cellPos.ReplaceAllStringFunc(l, form)
	}
	return err
}

// span returns the cell text of a piece, preceded by a line directive that
// makes positions in it those of the cell.
func span(code string, p piece) string {
	start, end := p.items[0].start, p.items[len(p.items)-1].end
	return lineDirective(code, start) + code[start:end]
}

// parseFile parses declarations: the file "cell" holds the piece after a
// package clause.
func (s *Session) parseFile(src string) (*ast.File, error) {
	f, err := parser.ParseFile(s.in.FileSet(), cellName, "package main;"+src+"\n", parser.ParseComments|parser.DeclarationErrors)
	if err != nil {
		return nil, compileError(err)
	}
	if err := s.rw.Run(rewrite.Parsed, &rewrite.Piece{File: f}); err != nil {
		return nil, rewriteError(err)
	}
	return f, nil
}

// parseBody parses statements as the body of a function.
func (s *Session) parseBody(src string) (*ast.BlockStmt, error) {
	f, err := parser.ParseFile(s.in.FileSet(), cellName, "package main; func main() {"+src+"\n}", parser.SkipObjectResolution)
	if err != nil {
		return nil, compileError(err)
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	if err := s.rw.Run(rewrite.Parsed, &rewrite.Piece{File: f, Top: body}); err != nil {
		return nil, rewriteError(err)
	}
	return f.Decls[0].(*ast.FuncDecl).Body, nil
}

// runGenerated runs statements written by the session itself.
func (s *Session) runGenerated(ctx context.Context, src string) error {
	body, err := s.parseBody(src)
	if err != nil {
		return err
	}
	return s.compileRun(ctx, body)
}

// runExpr runs the cell's trailing expression and returns its bundle. The
// expression is compiled as an argument of a hook that records its value: a
// Renderer if its type has a MIMEBundle method, a fmt.Stringer or error if
// it has String or Error (interpreted types lose their methods when passed
// as any), any values otherwise (several for a multi-value call). A call
// with no value is run as a plain statement. Only compilation is tried
// several times: the expression runs once.
func (s *Session) runExpr(ctx context.Context, code string, p piece) (*Bundle, error) {
	src := span(code, p)
	exprOf := func() (*ast.BlockStmt, ast.Expr, error) {
		body, err := s.parseBody(src)
		if err != nil {
			return nil, nil, err
		}
		return body, body.List[0].(*ast.ExprStmt).X, nil
	}
	hasMethod := func(name string) bool {
		body, e, err := exprOf()
		if err != nil {
			return false
		}
		sel := &ast.SelectorExpr{X: &ast.ParenExpr{Lparen: e.Pos(), X: e, Rparen: e.End()}, Sel: ident(e.Pos(), name)}
		body.List[0] = &ast.AssignStmt{Lhs: []ast.Expr{ident(e.Pos(), "_")}, TokPos: e.Pos(), Tok: token.ASSIGN, Rhs: []ast.Expr{sel}}
		_, err = s.compile(body)
		return err == nil
	}
	var hooks []string
	switch {
	case hasMethod("MIMEBundle"):
		hooks = []string{"Render", "Show"}
	case hasMethod("String"):
		hooks = []string{"Stringer", "Show"}
	case hasMethod("Error"):
		hooks = []string{"Error", "Show"}
	default:
		hooks = []string{"Show"}
	}
	for _, h := range hooks {
		body, e, err := exprOf()
		if err != nil {
			return nil, err
		}
		gen := &ast.BasicLit{ValuePos: e.Pos(), Kind: token.INT, Value: strconv.FormatInt(s.hooks.gen.Load(), 10)}
		body.List[0] = &ast.ExprStmt{X: &ast.CallExpr{Fun: hookCall(e.Pos(), h, gen), Lparen: e.Pos(), Args: []ast.Expr{e}, Rparen: e.End()}}
		s.instrument(&rewrite.Piece{Node: body}, true)
		s.markLines(body, true)
		n0 := len(frameData(s.in))
		if prog, err := s.compile(body); err == nil {
			defer s.dropTemporaries(body, n0)
			s.hooks.hasValue.Store(false)
			if err := s.execute(ctx, prog); err != nil {
				return nil, err
			}
			if s.hooks.hasValue.Load() {
				return s.hooks.result.Load(), nil
			}
			return nil, nil
		}
	}
	return nil, s.runStmts(ctx, code, piece{kind: pieceStmt, items: p.items})
}

// compileRun compiles and runs one piece.
func (s *Session) compileRun(ctx context.Context, n ast.Node) error {
	prog, err := s.compile(n)
	if err != nil {
		return err
	}
	return s.execute(ctx, prog)
}

// compile compiles n, turning a panic of the interpreter (an unsupported
// construct) into an error.
func (s *Session) compile(n ast.Node) (prog *interp.Program, err error) {
	muteLog()
	defer unmuteLog()
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprint(r)
			err = &CellError{Name: "InterpreterError", Value: fmt.Sprintf(
				"the interpreter (yaegi) failed on a construct it does not support: %s%s", msg, hint(msg))}
		}
	}()
	if err := s.checkArrays(n); err != nil {
		return nil, err
	}
	prog, err = s.in.CompileAST(n)
	forgetRoots(s.in)
	if declaresVars(n) {
		markGlobals(s.in)
	}
	if err != nil {
		s.resizeFrame()
		return nil, compileError(err)
	}
	growFrame(s.in)
	return prog, nil
}

// declaresVars reports whether n may declare a variable of the session's
// top-level scope (the only ones markGlobals repairs): a :=, a var
// declaration or a range with :=.
func declaresVars(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.AssignStmt:
			found = x.Tok == token.DEFINE
		case *ast.GenDecl:
			found = x.Tok == token.VAR
		case *ast.RangeStmt:
			found = x.Tok == token.DEFINE
		}
		return !found
	})
	return found
}

// yaegi reports some failures with log.Panic, which also prints the
// message, with a time stamp, to the process's stderr (the cell's, in the
// kernel), where it would only confuse: the message is in the CellError.
// The standard logger is silenced while any session compiles.
var (
	logMu    sync.Mutex
	logMuted int       // compilations in progress
	logSaved io.Writer // the standard logger's output before them
)

func muteLog() {
	logMu.Lock()
	defer logMu.Unlock()
	if logMuted == 0 {
		logSaved = log.Writer()
		log.SetOutput(io.Discard)
	}
	logMuted++
}

func unmuteLog() {
	logMu.Lock()
	defer logMu.Unlock()
	logMuted--
	if logMuted == 0 {
		log.SetOutput(logSaved)
	}
}
