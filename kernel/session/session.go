package session

import (
	"context"
	"fmt"
	"io"
	"path"
	"reflect"
	"strings"
	"sync"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
	"github.com/traefik/yaegi/stdlib/unrestricted"

	"github.com/pathnotes/pathnotes/kernel/session/internal/rewrite"
)

// Session is one interpreter with its state, kept from cell to cell. Its
// methods may be called from several goroutines; cells run one at a time.
// Close releases it.
type Session struct {
	opts    Options
	hooks   *hooks
	guarded map[string]bool // import paths of Options.Symbols, whose functions are guarded

	execMu sync.Mutex // held while a cell runs: one cell at a time

	// Set by Reset, used under execMu (or mu for readers outside a cell).
	in      *interp.Interpreter
	imports map[string]string    // import name → path
	pkgs    map[string]*pkgInfo  // import path → package known to the interpreter
	defined map[string]string    // "type T", "method T.M" → normalized source
	decls   map[string]*userDecl // top-level names declared by cells
	local   *localPkgs           // local packages loaded from source (localpkg.go)

	// The passes that rewrite Go yaegi lacks (package rewrite), reset by Reset.
	rw *rewrite.Rewriter

	stdout, stderr   *stream
	cellOut, cellErr *cellFile // the cells' os.Stdout and os.Stderr (cellstdio.go)
	stdin            *stdin
	goexits          goexitCount // the cells' runtime.Goexit calls that ended a piece (goexit.go)

	mu      sync.Mutex // guards the fields below and the interpreter's swap
	magics  map[magicKey]Magic
	out     Output // output of the running cell, or of the last one that ran
	running bool   // a cell is running
	closed  bool

	// Where panics happened (trace.go, tracestack.go).
	cell    *cellSource   // the running cell, nil between cells
	sites   []site        // statements that markers number; 0 is none
	chain   *panicChain   // the frames the latest panic unwound
	topSite reflect.Value // the global site variable of top-level code

	piece     *running   // the piece of a cell that runs now, nil between pieces
	panicNote *panicNote // the latest panic of a value of a cell's type

	// typeNames are the names of the types cells declared, by their
	// reflect type (several when yaegi gives types of the same fields one).
	typeNames map[reflect.Type][]string
}

// New starts a session with the standard library, opts.Symbols and the
// prelude imported. Close releases it.
func New(opts Options) (*Session, error) {
	if opts.MaxDepth < 0 {
		return nil, fmt.Errorf("session: New: MaxDepth %d is negative", opts.MaxDepth)
	}
	if opts.MaxDepth == 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	s := &Session{opts: opts, magics: map[magicKey]Magic{}, guarded: map[string]bool{}}
	for _, t := range opts.Symbols {
		for key := range t {
			if p := path.Dir(key); p != "." {
				s.guarded[p] = true
			}
		}
	}
	s.hooks = &hooks{s: s}
	s.stdin = &stdin{s: s}
	var err error
	if s.stdout, err = newStream("stdout", s.currentOutput); err != nil {
		return nil, err
	}
	if s.stderr, err = newStream("stderr", s.currentOutput); err != nil {
		s.stdout.close()
		return nil, err
	}
	s.cellOut, s.cellErr = &cellFile{st: s.stdout}, &cellFile{st: s.stderr}
	s.registerBuiltinMagics()
	if err := s.Reset(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close stops the session's output streams after sending what is left.
// Goroutines of cells that still run can no longer print.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.cellOut.close()
	s.cellErr.close()
	err := s.stdout.close()
	if cerr := s.stderr.close(); err == nil {
		err = cerr
	}
	return err
}

// prelude is Go that every session defines before its first cell: the
// builtins min and max of Go 1.21, which yaegi 0.16.1 lacks, as generic
// functions (an untyped constant mixed with a typed value may need a
// conversion, as in min(x, float64(1))).
const prelude = `
// _pnl is the site of the top-level statement that runs (trace.go).
var _pnl int

// Ctx returns the running cell's context, which an interrupt cancels: pass
// it to long computations, e.g. cpu.FloydWarshall(Ctx(), g, opts).
func Ctx() _pnctx.Context { return _pnrt.Context() }

type _pnOrdered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string
}

func min[T _pnOrdered](x T, y ...T) T {
	for _, v := range y {
		if v != v || v < x {
			x = v
		}
	}
	return x
}

func max[T _pnOrdered](x T, y ...T) T {
	for _, v := range y {
		if v != v || v > x {
			x = v
		}
	}
	return x
}
`

// Reset drops every variable, function, type and import of the session and
// starts a fresh interpreter with the standard library, the symbols and the
// prelude of the session's options. Registered magics are kept.
func (s *Session) Reset() error {
	s.execMu.Lock()
	defer s.execMu.Unlock()
	return s.reset()
}

// reset is Reset for a caller that holds execMu (the %reset magic).
func (s *Session) reset() error {
	var stdinReader io.Reader = s.stdin
	for _, c := range []*cellFile{s.cellOut, s.cellErr} {
		if err := c.reopen(); err != nil {
			return fmt.Errorf("session: %w", err)
		}
	}
	local := newLocalPkgs()
	in := interp.New(interp.Options{
		Stdin:  s.stdin,
		Stdout: s.cellOut, // fmt.Print writes to the cells' os.Stdout
		Stderr: stderrFilter{s},
		// The real environment, so that os.Getenv sees PATHNOTES_* and %env.
		Unrestricted: true,

		// Source packages are only the session's local packages.
		SourcecodeFilesystem: local,
	})
	loads := []interp.Exports{
		stdlib.Symbols,
		{"os/exec/exec": unrestricted.Symbols["os/exec/exec"]},
		{"os/os": {
			// *os.File variables of the session: see cellstdio.go.
			"Stdout": reflect.ValueOf(&s.cellOut.file).Elem(),
			"Stderr": reflect.ValueOf(&s.cellErr.file).Elem(),
			// An io.Reader, not an *os.File: reads ask the front end.
			"Stdin": reflect.ValueOf(&stdinReader).Elem(),
		}},
		s.hooks.symbols(),
		s.goexitSymbols(),
		repeatSymbols(),
	}
	loads = append(loads, s.hooks.guardSymbols(s.opts.Symbols)...)
	for i, syms := range loads {
		if err := in.Use(syms); err != nil {
			return fmt.Errorf("session: loading symbol table %d: %w", i, err)
		}
	}

	pkgs := map[string]*pkgInfo{}
	for _, syms := range loads {
		for key, m := range syms {
			p := path.Dir(key)
			if p == "." || p == runtimePath {
				continue
			}
			info := pkgs[p]
			if info == nil {
				info = &pkgInfo{path: p, name: path.Base(key), syms: map[string]reflect.Value{}}
				pkgs[p] = info
			}
			for name, v := range m {
				info.syms[name] = v
			}
		}
	}

	s.mu.Lock()
	s.in = in
	s.local = local
	s.pkgs = pkgs
	s.imports = map[string]string{}
	s.defined = map[string]string{}
	s.decls = map[string]*userDecl{}
	s.typeNames = map[reflect.Type][]string{}
	if s.rw == nil {
		s.rw = rewrite.New(rewriteEnv{s})
	}
	s.rw.Reset()
	s.mu.Unlock()
	s.hooks.depth.Store(0)

	ctx := context.Background()
	if err := s.runGeneratedDecls(ctx, fmt.Sprintf("import (\n%s %q\n%s \"context\"\n)", runtimeName, runtimePath, contextName)); err != nil {
		return fmt.Errorf("session: importing the run-time hooks: %w", err)
	}
	for _, p := range s.opts.Prelude {
		if _, err := s.runCode(ctx, fmt.Sprintf("import %q", p)); err != nil {
			return fmt.Errorf("session: importing prelude package %q: %w", p, err)
		}
	}
	if err := s.runGeneratedDecls(ctx, prelude); err != nil {
		return fmt.Errorf("session: defining the prelude: %w", err)
	}
	s.findTopSite()
	return nil
}

// runGeneratedDecls compiles declarations written by the session itself,
// whose allocations are checked as a cell's are (memory.go).
func (s *Session) runGeneratedDecls(ctx context.Context, src string) error {
	f, err := s.parseFile(src)
	if err != nil {
		return err
	}
	guardAllocs(f)
	return s.compileRun(ctx, f)
}

// Execute runs one cell. It returns the bundle of the cell's trailing
// expression (nil when the cell ends in a statement or the value is nil), or
// an error that is a *CellError for compile errors, runtime errors, panics
// and interrupts (ctx cancelled). Magics (%help lists them) are run here.
//
// Text that the cell writes to os.Stdout and os.Stderr (fmt.Print, log,
// println) is sent to out while the cell runs; goroutines of the cell that
// print after it ended print to the output of the latest cell. Reading
// os.Stdin or fmt.Scan asks out.Input for a line.
func (s *Session) Execute(ctx context.Context, code string, out Output) (*Bundle, error) {
	s.execMu.Lock()
	defer s.execMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, &CellError{Name: "SessionClosed", Value: "the session is closed"}
	}
	s.out, s.running = out, true
	s.mu.Unlock()
	s.stdin.drop()
	s.cellOut.prepare(s)
	s.cellErr.prepare(s)
	s.hooks.gen.Add(1)
	s.startCell(ctx, code)
	defer func() {
		s.endCell()
		s.flushStreams()
		s.mu.Lock()
		s.running = false
		s.mu.Unlock()
	}()
	return s.runCell(ctx, code, out)
}

// currentOutput is where streams go: the running cell, or the last one.
func (s *Session) currentOutput() Output {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out
}

// runningOutput is the output of the running cell, nil between cells.
func (s *Session) runningOutput() Output {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running {
		return nil
	}
	return s.out
}

// flushStreams sends what has been printed so far, before something that
// must come after it (a display, an input prompt, the cell's result).
func (s *Session) flushStreams() {
	s.stdout.sync()
	s.stderr.sync()
}

// Display publishes b to the output of the cell that is running now, or of
// the last cell that ran when none is running (so that goroutines of a
// finished cell can still show things). Before the first cell it is dropped.
// Text printed before the call is sent first.
func (s *Session) Display(b Bundle, displayID string, update bool) {
	out := s.currentOutput()
	if out == nil {
		return
	}
	s.flushStreams()
	out.Display(b, displayID, update)
}

// writeStderr writes text to the session's stderr stream.
func (s *Session) writeStderr(text string) {
	s.stderr.w.WriteString(text)
}

// pkgInfo is a package the interpreter can import.
type pkgInfo struct {
	path, name string
	syms       map[string]reflect.Value // exported names, and yaegi's "_Iface" wrappers
}

// maxTrace bounds the frames of a panic kept for one cell.
const maxTrace = 1000

// stderrFilter is the interpreter's own stderr: it keeps the lines yaegi
// writes for each frame a panic unwinds, which become the traceback of the
// cell's error (tracestack.go), and passes everything else to the stderr
// stream.
type stderrFilter struct{ s *Session }

// Write implements io.Writer.
func (f stderrFilter) Write(p []byte) (int, error) {
	if m := panicLine.FindSubmatch(p); m != nil {
		f.s.notePanicLine(string(m[2]), string(m[1]))
		return len(p), nil
	}
	return f.s.stderr.w.Write(p)
}

// isGenerated reports whether a frame, by the name yaegi gives it, is
// one of code the session generated rather than of the cell.
func isGenerated(name string) bool {
	return strings.Contains(name, "._pn") && !strings.Contains(name, "._pnmain")
}

var _ io.Writer = stderrFilter{}
