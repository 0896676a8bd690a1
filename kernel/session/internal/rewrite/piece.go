package rewrite

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
)

// Env is what the passes ask of the session they rewrite for.
type Env interface {
	// FileSet is the interpreter's file set, which holds the pieces'
	// positions.
	FileSet() *token.FileSet
	// Imports maps the names the session imported packages under to their
	// paths; the passes do not change it.
	Imports() map[string]string
	// Decl returns the declaration of name by an earlier cell.
	Decl(name string) (Decl, bool)
	// Decls calls f for the declaration of every name by earlier cells.
	Decls(f func(name string, d Decl))
	// Globals returns the session's variables and constants.
	Globals() map[string]reflect.Value
	// Package returns the name and the symbols of a package the session
	// can import, or false.
	Package(path string) (name string, syms map[string]reflect.Value, ok bool)
	// CompileDecls compiles and runs declarations the passes need in the
	// session (the Go of the standard generic functions).
	CompileDecls(src string) error
}

// Decl is what the session knows of a name an earlier cell declared.
type Decl struct {
	Kind string // "func", "method", "type", "var" or "const"
	Sig  string // the signature of a function, the declaration of others
	Full string // the whole declaration
}

// Rewriter runs the passes for one session and keeps what they learn from
// piece to piece: the types of the bound packages, and whether the
// standard generic functions are compiled.
type Rewriter struct {
	env        Env
	types      *reflectTypes
	stdDefined bool
}

// New returns the rewriter of a session.
func New(env Env) *Rewriter { return &Rewriter{env: env} }

// Reset forgets what the rewriter learned, as the session does on %reset.
func (r *Rewriter) Reset() {
	r.types = nil
	r.stdDefined = false
}

// Piece is one piece of a cell on its way to the interpreter: a file of
// declarations, or the statements of a cell as the body of main.
type Piece struct {
	// File is the parsed piece: declarations, or func main() { Top }.
	File *ast.File
	// Node is what a Compile stage pass rewrites: the file, or the block of
	// statements about to be compiled; nil means File.
	Node ast.Node
	// Top is the block of a cell's top-level statements, nil for
	// declarations.
	Top *ast.BlockStmt
	// Late and Then are what the late-vars pass takes out of File's
	// declarations: var declarations to run as top-level statements after
	// the rest of the piece, in order, and the declarations that name them,
	// to compile after those have run.
	Late []*ast.GenDecl
	Then []ast.Decl

	r       *Rewriter
	info    *types.Info
	checked bool
	needs   int // 0: not asked yet, 1: no types needed, 2: needed (see needsTypes)
}

// node returns what the piece's Compile stage rewrites.
func (p *Piece) node() ast.Node {
	if p.Node != nil {
		return p.Node
	}
	return p.File
}

// Types returns the types of the piece from a type check in the session,
// checking it on first use; it may lack the types of some or all
// expressions.
func (p *Piece) Types() *types.Info {
	if !p.checked {
		p.info = p.r.typeCheck(p.File)
		p.checked = true
	}
	return p.info
}

// pos turns a position of the piece into a file position.
func (p *Piece) pos(at token.Pos) token.Position { return p.r.env.FileSet().Position(at) }

// Error is code that a pass recognises and cannot rewrite, or names what
// the session lacks. Its message names the cell position.
type Error struct {
	Pos token.Position
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }
