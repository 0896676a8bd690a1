package session

import (
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

// IsComplete reports whether code is ready to run, for front ends that ask
// before running what the user typed (jupyter console): "complete";
// "incomplete" when more lines could complete it (an open bracket, a raw
// string or comment, a line ending in an operator), with indent a
// suggestion for the next line; or "invalid" when no further line can fix a
// syntax error. Line magics and shell (!) lines are complete; a cell magic
// (%%bash) is complete once its last line is blank, as IPython has it, so
// that its first line alone is not run.
func (s *Session) IsComplete(code string) (status, indent string) {
	t := strings.TrimSpace(code)
	if t == "" {
		return "complete", ""
	}
	if strings.HasPrefix(t, "%%") {
		return cellMagicComplete(code)
	}
	if strings.HasPrefix(t, "%") || strings.HasPrefix(t, "!") {
		return "complete", ""
	}

	var scanErr string
	depth := scanBrackets(code, func(msg string) {
		if scanErr == "" {
			scanErr = msg
		}
	}, func(_ token.Token, depth int) bool { return depth >= 0 })
	if depth < 0 {
		return "invalid", ""
	}
	switch scanErr {
	case "":
	case "raw string literal not terminated", "comment not terminated":
		return "incomplete", ""
	default:
		return "invalid", ""
	}
	if depth > 0 {
		return "incomplete", strings.Repeat("\t", depth)
	}
	for _, p := range groupItems(code, splitCell(code)) {
		src := code[p.items[0].start:p.items[len(p.items)-1].end]
		var err error
		if p.kind == pieceStmt || p.kind == pieceExpr {
			_, err = parser.ParseFile(token.NewFileSet(), "", "package p; func _() {"+src+"\n}", 0)
		} else {
			_, err = parser.ParseFile(token.NewFileSet(), "", "package p;"+src+"\n", 0)
		}
		if err != nil {
			if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 && atEnd(list[0].Msg) {
				return "incomplete", ""
			}
			return "invalid", ""
		}
	}
	return "complete", ""
}

// scanBrackets scans src as Go tokens, passing each scanner error's message
// to onErr and each token, with the depth of open brackets after it, to
// each, until the end or until each returns false. It returns the depth
// reached.
func scanBrackets(src string, onErr func(msg string), each func(tok token.Token, depth int) bool) int {
	var sc scanner.Scanner
	sc.Init(token.NewFileSet().AddFile("", -1, len(src)), []byte(src), func(_ token.Position, msg string) { onErr(msg) }, 0)
	depth := 0
	for {
		_, tok, _ := sc.Scan()
		if tok == token.EOF {
			return depth
		}
		switch tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		}
		if !each(tok, depth) {
			return depth
		}
	}
}

// atEnd reports whether a parse error says the code stopped too early.
func atEnd(msg string) bool {
	return strings.Contains(msg, "found 'EOF'") || strings.Contains(msg, "found '}'") && strings.HasPrefix(msg, "expected operand")
}

// cellMagicComplete answers IsComplete for a cell magic as IPython does: a
// newline is added when the code does not end in one (spaces aside), and
// the cell is complete when its last line is blank; otherwise more lines
// come, indented as the last one.
func cellMagicComplete(code string) (status, indent string) {
	if !strings.HasSuffix(strings.TrimRight(code, " \t"), "\n") {
		code += "\n"
	}
	lines := strings.SplitAfter(code, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	last := lines[len(lines)-1]
	if strings.TrimSpace(last) == "" {
		return "complete", ""
	}
	return "incomplete", last[:len(last)-len(strings.TrimLeft(last, " \t"))]
}
