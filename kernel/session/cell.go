package session

import (
	"fmt"
	"go/scanner"
	"go/token"
)

// cellName is the file name of cell code in positions and error messages:
// "cell:3:5: undefined: x" is line 3, column 5 of the cell.
const cellName = "cell"

// itemKind tells how a top-level item of a cell is evaluated.
type itemKind int

const (
	itemStmt    itemKind = iota // a statement, run in the session's main function
	itemDecl                    // a func, method, type, var or const declaration
	itemImport                  // an import declaration
	itemPackage                 // a package clause, which cells do not need: ignored
)

// item is one top-level statement or declaration of a cell: the bytes
// [start, end) of the cell, including the comments and blank lines before it
// (so that doc comments stay with their declaration).
type item struct {
	kind       itemKind
	start, end int
	stmt       bool // it cannot be an expression: it assigns, or starts with a keyword of statements
}

// splitCell cuts a cell into its top-level items. Items end at a semicolon
// (written, or inserted at a line end by Go's rules) outside any bracket.
// yaegi alone takes a source that is either declarations or statements; a
// cell may mix them in any order, so the session evaluates items in groups.
func splitCell(src string) []item {
	fset := token.NewFileSet()
	file := fset.AddFile(cellName, -1, len(src))
	var sc scanner.Scanner
	sc.Init(file, []byte(src), func(token.Position, string) {}, 0)

	var toks []scanned
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		toks = append(toks, scanned{file.Offset(pos), tok, lit})
	}

	var items []item
	start, depth, first := 0, 0, -1
	header := false // in the header of an if, for or switch: its ; do not end the item
	stmt := false
	flush := func(end int) {
		if first >= 0 {
			items = append(items, item{kind: classify(toks, first), start: start, end: end, stmt: stmt})
		}
		start, first, stmt = end, -1, false
	}
	for i, t := range toks {
		if depth == 0 && (assigns[t.tok] || first < 0 && stmtKeywords[t.tok]) {
			stmt = true
		}
		switch t.tok {
		case token.IF, token.FOR, token.SWITCH:
			if depth == 0 {
				header = true
			}
		case token.LBRACE:
			if depth == 0 {
				header = false
			}
			depth++
		case token.LPAREN, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			if depth > 0 {
				depth--
			}
		case token.SEMICOLON:
			if depth == 0 && !header {
				end := t.off
				if t.lit == ";" {
					end++
				}
				flush(end)
				continue
			}
		}
		if first < 0 {
			first = i
		}
	}
	flush(len(src))
	if len(items) > 0 {
		items[len(items)-1].end = len(src)
	}
	return items
}

// assigns are the tokens of assignments, outside brackets never part of an
// expression.
var assigns = map[token.Token]bool{
	token.ASSIGN: true, token.DEFINE: true, token.INC: true, token.DEC: true,
	token.ADD_ASSIGN: true, token.SUB_ASSIGN: true, token.MUL_ASSIGN: true, token.QUO_ASSIGN: true,
	token.REM_ASSIGN: true, token.AND_ASSIGN: true, token.OR_ASSIGN: true, token.XOR_ASSIGN: true,
	token.SHL_ASSIGN: true, token.SHR_ASSIGN: true, token.AND_NOT_ASSIGN: true,
}

// stmtKeywords are the keywords that start a statement or declaration, never
// an expression (func, map, chan, struct and interface may start one).
var stmtKeywords = map[token.Token]bool{
	token.BREAK: true, token.CASE: true, token.CONST: true, token.CONTINUE: true, token.DEFAULT: true,
	token.DEFER: true, token.ELSE: true, token.FALLTHROUGH: true, token.FOR: true, token.GO: true,
	token.GOTO: true, token.IF: true, token.IMPORT: true, token.PACKAGE: true, token.RETURN: true,
	token.SELECT: true, token.SWITCH: true, token.TYPE: true, token.VAR: true,
}

// scanned is one token of a cell.
type scanned struct {
	off int
	tok token.Token
	lit string
}

// classify tells the kind of the item that starts at toks[i].
func classify(toks []scanned, i int) itemKind {
	switch toks[i].tok {
	case token.PACKAGE:
		return itemPackage
	case token.IMPORT:
		return itemImport
	case token.TYPE, token.VAR, token.CONST:
		return itemDecl
	case token.FUNC:
		if isFuncDecl(toks[i+1:]) {
			return itemDecl
		}
	}
	return itemStmt
}

// isFuncDecl tells a function or method declaration (func f(...), func (r T)
// m(...)) from a statement that starts with a function literal (func(...)
// {...}(), whose result type may also be a name).
func isFuncDecl(rest []scanned) bool {
	if len(rest) == 0 {
		return false
	}
	if rest[0].tok == token.IDENT {
		return true
	}
	if rest[0].tok != token.LPAREN {
		return false
	}
	depth := 0
	for j, t := range rest {
		switch t.tok {
		case token.LPAREN:
			depth++
		case token.RPAREN:
			depth--
			if depth == 0 {
				return j+2 < len(rest) && rest[j+1].tok == token.IDENT && rest[j+2].tok == token.LPAREN
			}
		}
	}
	return false
}

// position returns the 1-based line and column (in bytes, as Go reports
// them) of byte offset off of src.
func position(src string, off int) (line, col int) {
	line, col = 1, 1
	for i := 0; i < off && i < len(src); i++ {
		if src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// lineDirective makes the text that follows it report positions as the cell
// offset off, whatever the code the session wraps around it.
func lineDirective(src string, off int) string {
	line, col := position(src, off)
	return fmt.Sprintf("/*line %s:%d:%d*/", cellName, line, col)
}
