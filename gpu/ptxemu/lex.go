package ptxemu

import (
	"fmt"
	"strings"
)

// tokKind says what a token is.
type tokKind uint8

const (
	tokWord   tokKind = iota // directives, opcodes, registers, labels, numbers
	tokPunct                 // one of , ; : [ ] { } ( ) + - ! | @ < > =
	tokString                // "..." (file names of .file)
)

// token is one lexical unit of PTX text with the line it starts on.
type token struct {
	kind tokKind
	text string
	line int
}

// isWordByte reports whether c may appear in a word: PTX identifiers,
// opcodes with their dotted modifiers (ld.global.u32), registers (%r12,
// %tid.x), labels ($L__BB0_5) and numeric literals (0f3F800000, 7.8).
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '$' || c == '%' || c == '.'
}

// lex splits PTX text into tokens, dropping // and /* */ comments.
func lex(src string) ([]token, error) {
	var toks []token
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, &SyntaxError{Line: line, Msg: "unterminated /* comment"}
			}
			line += strings.Count(src[i:i+2+end], "\n")
			i += end + 4
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' && src[j] != '\n' {
				j++
			}
			if j >= len(src) || src[j] != '"' {
				return nil, &SyntaxError{Line: line, Msg: "unterminated string"}
			}
			toks = append(toks, token{tokString, src[i+1 : j], line})
			i = j + 1
		case isWordByte(c):
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			toks = append(toks, token{tokWord, src[i:j], line})
			i = j
		case strings.IndexByte(",;:[]{}()+-!|@<>=", c) >= 0:
			toks = append(toks, token{tokPunct, string(c), line})
			i++
		default:
			return nil, &SyntaxError{Line: line, Msg: fmt.Sprintf("unexpected character %q", c)}
		}
	}
	return toks, nil
}
