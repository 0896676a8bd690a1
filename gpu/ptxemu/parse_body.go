package ptxemu

import (
	"strconv"
	"strings"
)

// body reads statements up to the "}" that closes the function.
func (p *parser) body(f *function) error {
	depth := 1
	for {
		if p.eof() {
			return p.errorf(p.peek(), "function %s: missing }", f.name)
		}
		t := p.peek()
		switch {
		case t.text == "{":
			p.next()
			depth++
			f.body = append(f.body, stmt{kind: stmtOpen, line: t.line})
		case t.text == "}":
			p.next()
			if depth--; depth == 0 {
				return nil
			}
			f.body = append(f.body, stmt{kind: stmtClose, line: t.line})
		case t.text == ";":
			p.next()
		case t.text == ".reg":
			s, err := p.regDecls()
			if err != nil {
				return err
			}
			f.body = append(f.body, s)
		case t.text == ".shared" || t.text == ".local" || t.text == ".global" || t.text == ".const":
			v, err := p.variable()
			if err != nil {
				return err
			}
			f.body = append(f.body, stmt{kind: stmtVar, line: t.line, v: v})
		case t.text == ".param":
			// A .param declaration inside a body belongs to a call
			// sequence: the arguments and return value of a call.
			v, err := p.variable()
			if err != nil {
				return err
			}
			f.body = append(f.body, stmt{kind: stmtVar, line: t.line, v: v})
		case t.text == ".loc":
			p.locDirective()
		case t.text == ".file":
			p.fileDirective()
		case t.text == ".pragma":
			p.next()
			for !p.eof() && !p.is(";") {
				p.next()
			}
			p.next()
		case t.kind == tokWord && p.pos+1 < len(p.toks) && p.toks[p.pos+1].text == ":":
			p.pos += 2
			f.body = append(f.body, stmt{kind: stmtLabel, line: t.line, label: t.text})
		default:
			s, err := p.instruction()
			if err != nil {
				return err
			}
			s.src = p.loc
			f.body = append(f.body, s)
		}
	}
}

// regDecls reads ".reg .type %a, %r<N>, ...;".
func (p *parser) regDecls() (stmt, error) {
	t := p.next()
	s := stmt{kind: stmtReg, line: t.line}
	var ty ptxType
	for strings.HasPrefix(p.peek().text, ".") {
		m := p.next()
		switch {
		case m.text == ".v2" || m.text == ".v4":
			return s, &UnsupportedError{Line: m.line, Instruction: ".reg " + m.text, Why: "vector registers"}
		default:
			var ok bool
			if ty, ok = typeFor(m.text[1:]); !ok {
				if m.text == ".f16" || m.text == ".f16x2" || m.text == ".bf16" {
					return s, &UnsupportedError{Line: m.line, Instruction: ".reg " + m.text, Why: "half-precision types"}
				}
				return s, p.errorf(m, "unknown register type %s", m.text)
			}
		}
	}
	if ty.kind == kindNone {
		return s, p.errorf(t, ".reg without a type")
	}
	for {
		name, err := p.word()
		if err != nil {
			return s, err
		}
		d := regDecl{typ: ty, name: name.text}
		if p.accept("<") {
			if d.n, err = p.integer(); err != nil {
				return s, err
			}
			if err := p.expect(">"); err != nil {
				return s, err
			}
		}
		s.regs = append(s.regs, d)
		if !p.accept(",") {
			break
		}
	}
	return s, p.expect(";")
}

// instruction reads "[@[!]p] opcode operand, ...;".
func (p *parser) instruction() (stmt, error) {
	startPos := p.pos
	first := p.peek()
	s := stmt{kind: stmtInst, line: first.line}
	if p.accept("@") {
		s.guardNeg = p.accept("!")
		g, err := p.word()
		if err != nil {
			return s, err
		}
		s.guard = g.text
	}
	op, err := p.word()
	if err != nil {
		return s, err
	}
	s.op = op.text
	for !p.accept(";") {
		if p.eof() {
			return s, p.errorf(op, "%s: missing ;", s.op)
		}
		a, err := p.operand()
		if err != nil {
			return s, err
		}
		if p.accept("|") {
			b, err := p.operand()
			if err != nil {
				return s, err
			}
			a = operand{kind: argPair, elems: []operand{a, b}}
		}
		s.args = append(s.args, a)
		if !p.accept(",") && !p.is(";") {
			return s, p.errorf(p.peek(), "%s: expected , or ; after an operand, found %q", s.op, p.peek().text)
		}
	}
	s.text = joinTokens(p.toks[startPos : p.pos-1])
	return s, nil
}

// operand reads one instruction operand.
func (p *parser) operand() (operand, error) {
	t := p.peek()
	switch t.text {
	case "[":
		p.next()
		return p.address()
	case "{":
		p.next()
		return p.list("}", argVec)
	case "(":
		p.next()
		return p.list(")", argParen)
	case "!":
		p.next()
		a, err := p.operand()
		a.not = !a.not
		return a, err
	case "-":
		p.next()
		a, err := p.operand()
		if err == nil && a.kind != argNum {
			return a, p.errorf(t, "- before %q: only literals may be negated", a.word)
		}
		a.minus = !a.minus
		return a, err
	}
	w, err := p.word()
	if err != nil {
		return operand{}, err
	}
	if w.text == "_" {
		return operand{kind: argSink, word: "_"}, nil
	}
	if c := w.text[0]; c >= '0' && c <= '9' {
		return operand{kind: argNum, word: w.text}, nil
	}
	return operand{kind: argWord, word: w.text}, nil
}

// list reads elements up to close, for vectors and call argument lists.
func (p *parser) list(close string, kind operandKind) (operand, error) {
	a := operand{kind: kind}
	for !p.accept(close) {
		e, err := p.operand()
		if err != nil {
			return a, err
		}
		a.elems = append(a.elems, e)
		if !p.accept(",") && !p.is(close) {
			return a, p.errorf(p.peek(), "expected , or %s, found %q", close, p.peek().text)
		}
	}
	return a, nil
}

// address reads "base", "base+off", "base+-off", "off" up to "]".
func (p *parser) address() (operand, error) {
	a := operand{kind: argAddr}
	t := p.peek()
	if t.kind == tokWord && !(t.text[0] >= '0' && t.text[0] <= '9') {
		p.next()
		a.word = t.text
	}
	for !p.accept("]") {
		sign := int64(1)
		s := p.next()
		switch s.text {
		case "+":
		case "-":
			sign = -1
		default:
			if a.word != "" || a.off != 0 {
				return a, p.errorf(s, "bad address: unexpected %q", s.text)
			}
			p.pos-- // an absolute address: the literal comes next
		}
		if p.accept("-") {
			sign = -sign
		}
		n := p.next()
		v, err := parseInt(n.text)
		if err != nil {
			return a, p.errorf(n, "bad address offset %q", n.text)
		}
		a.off += sign * v
	}
	return a, nil
}

// joinTokens rebuilds an instruction's text for messages.
func joinTokens(toks []token) string {
	var sb strings.Builder
	for i, t := range toks {
		if i > 0 && !strings.Contains(",;]})|+", t.text) && !strings.Contains("[{(@!|+-", toks[i-1].text) {
			sb.WriteByte(' ')
		}
		sb.WriteString(t.text)
	}
	return sb.String()
}

// parseInt parses a PTX integer literal: decimal, 0x hex, 0b binary or
// leading-0 octal, with an optional U suffix.
func parseInt(s string) (int64, error) {
	s = strings.TrimSuffix(s, "U")
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		v, err := strconv.ParseUint(s[2:], 16, 64)
		return int64(v), err
	case strings.HasPrefix(s, "0b") || strings.HasPrefix(s, "0B"):
		v, err := strconv.ParseUint(s[2:], 2, 64)
		return int64(v), err
	case len(s) > 1 && s[0] == '0':
		v, err := strconv.ParseUint(s[1:], 8, 64)
		return int64(v), err
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return int64(v), err
}
