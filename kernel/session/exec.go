package session

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"log"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"unsafe"

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
		if isShownExpr(src[tail.start:tail.end]) {
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
			return nil, s.genericHint(code, err)
		}
	}
	return result, nil
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
	return f, nil
}

// parseBody parses statements as the body of a function.
func (s *Session) parseBody(src string) (*ast.BlockStmt, error) {
	f, err := parser.ParseFile(s.in.FileSet(), cellName, "package main; func main() {"+src+"\n}", parser.ParseComments)
	if err != nil {
		return nil, compileError(err)
	}
	return f.Decls[0].(*ast.FuncDecl).Body, nil
}

// runImports imports the packages of a cell that the session has not
// imported yet under the same name.
func (s *Session) runImports(ctx context.Context, code string, p piece) error {
	f, err := s.parseFile(span(code, p))
	if err != nil {
		return err
	}
	var keep []ast.Spec
	for _, d := range f.Decls {
		for _, spec := range d.(*ast.GenDecl).Specs {
			is := spec.(*ast.ImportSpec)
			name, err := s.importName(is)
			if err != nil {
				return err
			}
			if prev, ok := s.imports[name]; ok {
				if prev == importPath(is) {
					continue // imported before: a second import would be an error
				}
				pos := s.in.FileSet().Position(is.Pos())
				return &CellError{Name: "CompileError", Value: fmt.Sprintf(
					"%s: import %q: the name %s is taken by the import of %q in this session; name the import (import x %q) or use %%reset",
					pos, importPath(is), name, prev, importPath(is))}
			}
			keep = append(keep, spec)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	f.Decls = []ast.Decl{&ast.GenDecl{TokPos: f.Package, Tok: token.IMPORT, Lparen: f.Package, Specs: keep, Rparen: f.Package}}
	f.Imports = nil
	for _, spec := range keep {
		f.Imports = append(f.Imports, spec.(*ast.ImportSpec))
	}
	if err := s.compileRun(ctx, f); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, spec := range keep {
		is := spec.(*ast.ImportSpec)
		name, _ := s.importName(is)
		s.imports[name] = importPath(is)
	}
	return nil
}

func importPath(is *ast.ImportSpec) string {
	p := strings.Trim(is.Path.Value, "`\"")
	return p
}

// importName returns the name under which an import spec makes its package
// visible: the explicit name, or the package's name from the symbol tables.
func (s *Session) importName(is *ast.ImportSpec) (string, error) {
	if is.Name != nil {
		return is.Name.Name, nil
	}
	p := importPath(is)
	if info, ok := s.pkgs[p]; ok {
		return info.name, nil
	}
	if p == runtimePath {
		return "session", nil
	}
	pos := s.in.FileSet().Position(is.Pos())
	return "", &CellError{Name: "CompileError", Value: fmt.Sprintf(
		"%s: import %q: no such package in this kernel (the interpreter knows the standard library and the packages bound into pathnotes)", pos, p)}
}

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
	s.mu.Lock()
	for k, v := range pending {
		s.defined[k] = v
	}
	s.noteDecls(f, full, base)
	s.mu.Unlock()
	if runMain {
		return s.runGenerated(ctx, "_pnmain()")
	}
	return nil
}

// compileDecls compiles and runs a file of declarations.
// Temporaries of var initializers are dropped, as those of statements are
// (see dropTemporaries), when the file declares nothing but variables.
func (s *Session) compileDecls(ctx context.Context, f *ast.File) error {
	instrument(f)
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
	instrument(body)
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
			wrapCompound(assign)
			instrument(assign)
			splitMinMax(assign)
			checkStatements(assign, s.hooks.gen.Load())
			n0 := len(frameData(s.in))
			if prog, err := s.compile(assign); err == nil {
				defer s.dropTemporaries(assign, n0)
				return s.execute(ctx, prog)
			}
		}
	}
	wrapCompound(body)
	instrument(body)
	splitMinMax(body)
	checkStatements(body, s.hooks.gen.Load())
	n0 := len(frameData(s.in))
	prog, err := s.compile(body)
	if err != nil {
		return s.explain(body, err)
	}
	defer s.dropTemporaries(body, n0)
	defer s.clearMoved(old)
	return s.execute(ctx, prog)
}

// frameData returns the storage of the interpreter's global frame, where
// yaegi keeps the session's variables and also the temporary values of
// every top-level statement (call results, composite literals), in slots
// that are never reused. The field is unexported; if a later yaegi renames
// it, frameData returns nil and nothing is dropped.
func frameData(in *interp.Interpreter) []reflect.Value {
	f := reflect.ValueOf(in).Elem().FieldByName("frame")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return nil
	}
	d := f.Elem().FieldByName("data")
	if !d.IsValid() || d.Type() != reflect.TypeFor[[]reflect.Value]() || !d.CanAddr() {
		return nil
	}
	return *(*[]reflect.Value)(unsafe.Pointer(d.UnsafeAddr()))
}

// dropTemporaries releases the global slots that the top-level code n added
// from index n0 on and that hold no session variable: kept, they would hold
// every intermediate value of every cell (fmt.Println(len(bigResult())))
// for the life of the session. Code with function literals or go
// statements is left alone: a closure or goroutine that outlives the cell
// may use a block variable of the cell's top level, which lives there too.
func (s *Session) dropTemporaries(n ast.Node, n0 int) {
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

// releaseSlots replaces the slots of data from index from on whose value
// lives at an address release accepts with fresh zero values. It replaces
// rather than zeroes: a slot may hold a reference into live memory (yaegi
// keeps the element of xs[i] = v as a value addressing the array), which
// zeroing would write through.
func releaseSlots(data []reflect.Value, from int, release func(addr uintptr) bool) {
	for i := from; i < len(data); i++ {
		if v := data[i]; v.IsValid() && v.CanAddr() && release(v.UnsafeAddr()) {
			data[i] = reflect.New(v.Type()).Elem()
		}
	}
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
		body.List[0] = &ast.ExprStmt{X: hookCall(e.Pos(), h, e)}
		instrument(body)
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
				"the interpreter (yaegi) failed on a construct it does not support: %s%s", msg, gapHint(msg))}
		}
	}()
	prog, err = s.in.CompileAST(n)
	forgetRoots(s.in)
	markGlobals(s.in)
	if err != nil {
		s.resizeFrame()
		return nil, compileError(err)
	}
	return prog, nil
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

// forgetRoots empties yaegi's list of the syntax trees of everything it
// compiled, which only its debugger reads: kept, it holds every cell's
// tree (tens of kilobytes a cell) for the life of the session. The field is
// unexported; if a later yaegi renames it, nothing happens.
func forgetRoots(in *interp.Interpreter) {
	f := reflect.ValueOf(in).Elem().FieldByName("roots")
	if !f.IsValid() || f.Kind() != reflect.Slice || !f.CanAddr() {
		return
	}
	f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	f.Set(reflect.Zero(f.Type()))
}

// markGlobals marks as global every variable of the session's top-level
// scope. yaegi 0.16 forgets the mark on variables that top-level code
// defines with a multi-value := or var (u, err := f()), so functions that
// read them reach them through the caller's frame instead of the global
// one: right when called from the top level, wrong (a zero value, or
// another variable's) when called from a function or closure. Functions
// compiled after the mark read the right slot. The fields are unexported;
// if a later yaegi renames them, markGlobals does nothing.
func markGlobals(in *interp.Interpreter) {
	defer func() { recover() }() // best effort, like the other repairs
	scopes := reflect.ValueOf(in).Elem().FieldByName("scopes")
	if !scopes.IsValid() || scopes.Kind() != reflect.Map {
		return
	}
	sc := scopes.MapIndex(reflect.ValueOf("main"))
	if !sc.IsValid() || sc.IsNil() {
		return
	}
	syms := sc.Elem().FieldByName("sym")
	if !syms.IsValid() || syms.Kind() != reflect.Map {
		return
	}
	iter := syms.MapRange()
	for iter.Next() {
		sym := iter.Value()
		if sym.Kind() != reflect.Pointer || sym.IsNil() {
			continue
		}
		kind, global, index := sym.Elem().FieldByName("kind"), sym.Elem().FieldByName("global"), sym.Elem().FieldByName("index")
		if !kind.IsValid() || !global.IsValid() || !index.IsValid() || global.Kind() != reflect.Bool {
			return
		}
		if kind.Uint() != yaegiVarSym || global.Bool() || index.Int() < 0 {
			continue
		}
		reflect.NewAt(global.Type(), unsafe.Pointer(global.UnsafeAddr())).Elem().SetBool(true)
	}
}

// yaegiVarSym is yaegi 0.16's symbol kind of a variable (varSym).
const yaegiVarSym = 9

// resizeFrame runs an empty program after a failed compilation: yaegi may
// have added variables to its global scope without growing the storage of
// their values, and reading them (Globals) would panic until something runs.
func (s *Session) resizeFrame() {
	defer func() { recover() }() // best effort: only the next cell would fix it
	if prog, err := s.in.CompileAST(&ast.BlockStmt{}); err == nil {
		s.in.Execute(prog)
	}
}

// globals returns the session's variables and constants.
func (s *Session) globals() (g map[string]reflect.Value) {
	defer func() {
		if r := recover(); r != nil {
			g = map[string]reflect.Value{}
		}
	}()
	return s.in.Globals()
}

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
	return &CellError{Name: "CompileError", Value: msg + gapHint(msg)}
}

// gapHint explains compile errors that come from features yaegi 0.16.1 lacks.
func gapHint(msg string) string {
	switch {
	case strings.Contains(msg, "nil type"):
		return " (the interpreter could not type this code: yaegi 0.16.1 cannot range over an integer or a function " +
			"(Go 1.22/1.23 features): write for i := 0; i < n; i++ { ... }, or call the iterator function with a yield function)"
	case strings.Contains(msg, "undefined: clear"):
		return " (the builtin clear is not available in the interpreter: use for k := range m { delete(m, k) })"
	case strings.Contains(msg, "undefined selector: slices.") || strings.Contains(msg, "undefined selector: maps."):
		return " (the interpreter (yaegi 0.16.1) lacks most generic functions of packages slices and maps: " +
			"use sort.Ints, sort.Slice or a loop)"
	case strings.Contains(msg, "redeclared in this block"):
		return " (names of imports, types and functions share the session's scope)"
	}
	return ""
}

// translations turn the messages of panics inside the interpreter's
// reflection into those Go would give, keeping the original.
var translations = []struct{ from, to string }{
	{"reflect: slice index out of range", "runtime error: index out of range"},
	{"reflect: array index out of range", "runtime error: index out of range"},
	{"reflect: string index out of range", "runtime error: index out of range"},
	{"reflect: call of reflect.Value.Field on zero Value", "runtime error: invalid memory address or nil pointer dereference"},
	{"reflect: call of reflect.Value.Interface on zero Value", "runtime error: invalid memory address or nil pointer dereference (method call on a nil interface?)"},
	{"reflect: call of reflect.Value.Call on zero Value", "runtime error: invalid memory address or nil pointer dereference (call of a nil function?)"},
	{"reflect: call of reflect.Value.Elem on zero Value", "runtime error: invalid memory address or nil pointer dereference"},
}

// runtimeError turns the error of a failed run (usually a yaegi Panic) into
// a CellError with the interpreted call stack as traceback.
func (s *Session) runtimeError(err error) *CellError {
	trace := s.takeTrace()
	e := &CellError{Name: "RuntimeError", Value: err.Error()}
	var p interp.Panic
	if errors.As(err, &p) {
		var de depthError
		var re runtime.Error
		value := p.Value
		if rv, ok := value.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
			value = rv.Interface() // yaegi passes some panic values wrapped
		}
		switch v := value.(type) {
		case depthError:
			e.Name, e.Value = "StackOverflow", v.Error()
		case error:
			switch {
			case errors.As(v, &de):
				e.Name, e.Value = "StackOverflow", de.Error()
			case errors.As(v, &re):
				e.Name, e.Value = "RuntimeError", v.Error()
			default:
				e.Name, e.Value = "panic", v.Error()
			}
		case string:
			e.Name, e.Value = "panic", v
		default:
			e.Name, e.Value = "panic", fmt.Sprint(describeValue(v))
		}
		for _, t := range translations {
			if strings.HasPrefix(e.Value, t.from) {
				e.Name, e.Value = "RuntimeError", t.to+" ("+e.Value+")"
			}
		}
		if n := len(trace); n > 20 {
			trace = append(trace[:10:10], append([]string{fmt.Sprintf("... %d more frames ...", n-20)}, trace[n-10:]...)...)
		}
	} else {
		e.Value = err.Error() + gapHint(err.Error())
		if strings.Contains(err.Error(), "nil type") {
			e.Name = "CompileError"
		}
	}
	e.Traceback = append([]string{e.Name + ": " + e.Value}, trace...)
	return e
}

// describeValue formats a panic value of any type as %v does, with its type
// when that helps (panic(3) shows "3 (int)").
func describeValue(v any) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprintf("%v (%s)", v, reflect.TypeOf(v))
}

// panicLine matches the lines yaegi writes to its stderr for each frame a
// panic unwinds: "cell:3:5: panic: main.f(...)".
var panicLine = regexp.MustCompile(`^(\S*:\d+:\d+): panic: (.*)\(\.\.\.\)\n?$`)
