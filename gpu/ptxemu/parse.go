package ptxemu

import (
	"fmt"
	"strconv"
	"strings"
)

// The parser turns PTX text into a module of functions whose bodies are
// flat statement lists (instructions, labels, declarations and scope
// marks); decode.go turns those into executable code.

// module is a parsed PTX module. Its .version and .target are read but
// not kept: an instruction too new for the interpreter fails on its own.
type module struct {
	name  string
	vars  []*varDecl // module-scope variables
	funcs []*function
}

// varDecl declares a variable in a state space: .global, .const, .shared
// or .local, at module or function scope.
type varDecl struct {
	space  string
	align  int
	typ    ptxType
	name   string
	count  int  // elements; 1 for a scalar
	extern bool // .extern .shared x[]: dynamic shared memory
	init   []operand
	line   int
}

// bytes is the variable's size.
func (v *varDecl) bytes() int { return v.count * int(v.typ.size) }

// paramDecl is a kernel or function parameter.
type paramDecl struct {
	name  string
	typ   ptxType
	align int
	count int // elements, for .b8 name[N] arrays
}

// function is an .entry (kernel) or a .func.
type function struct {
	name    string
	entry   bool
	line    int
	params  []paramDecl
	maxntid []int // .maxntid / .reqntid limits, when given
	reqntid []int
	body    []stmt
	hasBody bool
}

type stmtKind uint8

const (
	stmtInst stmtKind = iota
	stmtLabel
	stmtReg
	stmtVar
	stmtOpen  // {
	stmtClose // }
)

// regDecl declares one register, or n registers name0..name(n-1) when n > 0.
type regDecl struct {
	typ  ptxType
	name string
	n    int
}

// stmt is one statement of a function body.
type stmt struct {
	kind     stmtKind
	line     int
	guard    string // predicate register of @p / @!p, "" if none
	guardNeg bool
	op       string // opcode with modifiers, e.g. "ld.global.u32"
	args     []operand
	text     string // the instruction as written, for messages
	label    string
	regs     []regDecl
	v        *varDecl
}

type operandKind uint8

const (
	argWord  operandKind = iota // register, special register, symbol or label
	argNum                      // numeric literal
	argAddr                     // [base+offset]
	argVec                      // {a, b, ...}
	argPair                     // a|b (setp's two destinations)
	argParen                    // (a, b) in call
	argSink                     // _
)

// operand is an instruction argument as written.
type operand struct {
	kind  operandKind
	word  string // the register, symbol, label or literal
	not   bool   // !p
	minus bool   // -literal
	off   int64  // argAddr: the constant offset
	elems []operand
}

// parser reads tokens into a module.
type parser struct {
	toks []token
	pos  int
	mod  *module
	// declsOnly skips function bodies (ParseDecls): the declarations of
	// PTX whose instructions the interpreter does not know.
	declsOnly bool
}

func parse(name, src string) (*module, error) { return parseModule(name, src, false) }

// parseModule is parse, skipping function bodies when declsOnly is set.
func parseModule(name, src string, declsOnly bool) (*module, error) {
	toks, err := lex(src)
	if err != nil {
		err.(*SyntaxError).Module = name
		return nil, err
	}
	p := &parser{toks: toks, mod: &module{name: name}, declsOnly: declsOnly}
	if err := p.module(); err != nil {
		if se, ok := err.(*SyntaxError); ok {
			se.Module = name
		}
		return nil, err
	}
	return p.mod, nil
}

func (p *parser) eof() bool { return p.pos >= len(p.toks) }

func (p *parser) peek() token {
	if p.eof() {
		line := 0
		if len(p.toks) > 0 {
			line = p.toks[len(p.toks)-1].line
		}
		return token{kind: tokPunct, text: "<end>", line: line}
	}
	return p.toks[p.pos]
}

func (p *parser) next() token {
	t := p.peek()
	if !p.eof() {
		p.pos++
	}
	return t
}

func (p *parser) errorf(t token, format string, args ...any) error {
	return &SyntaxError{Line: t.line, Msg: fmt.Sprintf(format, args...)}
}

// is reports whether the next token is the punctuation or word s.
func (p *parser) is(s string) bool { return !p.eof() && p.toks[p.pos].text == s }

// accept consumes s if it comes next.
func (p *parser) accept(s string) bool {
	if p.is(s) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(s string) error {
	t := p.next()
	if t.text != s || t.kind == tokString {
		return p.errorf(t, "expected %q, found %q", s, t.text)
	}
	return nil
}

func (p *parser) word() (token, error) {
	t := p.next()
	if t.kind != tokWord {
		return t, p.errorf(t, "expected a name, found %q", t.text)
	}
	return t, nil
}

func (p *parser) integer() (int, error) {
	t := p.next()
	neg := false
	if t.text == "-" {
		neg, t = true, p.next()
	}
	v, err := parseInt(t.text)
	if err != nil {
		return 0, p.errorf(t, "expected an integer, found %q", t.text)
	}
	if neg {
		v = -v
	}
	return int(v), nil
}

// restOfLine skips the tokens left on t's line (directives such as .loc
// and .file end at the line's end, without a semicolon).
func (p *parser) restOfLine(line int) {
	for !p.eof() && p.toks[p.pos].line == line {
		p.pos++
	}
}

func (p *parser) module() error {
	for !p.eof() {
		t := p.peek()
		switch t.text {
		case ".version":
			p.next()
			p.next()
		case ".target":
			p.next()
			for {
				if _, err := p.word(); err != nil {
					return err
				}
				if !p.accept(",") {
					break
				}
			}
		case ".address_size":
			p.next()
			n, err := p.integer()
			if err != nil {
				return err
			}
			if n != 64 {
				return p.errorf(t, ".address_size %d: only 64-bit addressing is supported", n)
			}
		case ".file", ".loc":
			p.next()
			p.restOfLine(t.line)
		case ".section":
			if err := p.skipSection(); err != nil {
				return err
			}
		case ";":
			p.next()
		default:
			if err := p.topLevel(); err != nil {
				return err
			}
		}
	}
	return nil
}

// skipSection skips a .section name { ... } block of debug data.
func (p *parser) skipSection() error {
	start := p.next()
	for !p.eof() && !p.is("{") {
		p.next()
	}
	if p.eof() {
		return p.errorf(start, "unterminated .section")
	}
	depth := 0
	for !p.eof() {
		switch p.next().text {
		case "{":
			depth++
		case "}":
			if depth--; depth == 0 {
				return nil
			}
		}
	}
	return p.errorf(start, "unterminated .section")
}

// topLevel reads a function or a module-scope variable.
func (p *parser) topLevel() error {
	start := p.peek()
	extern := false
	for {
		switch p.peek().text {
		case ".visible", ".weak", ".common":
			p.next()
			continue
		case ".extern":
			p.next()
			extern = true
			continue
		}
		break
	}
	switch p.peek().text {
	case ".entry", ".func":
		return p.function()
	case ".global", ".const", ".shared", ".local":
		v, err := p.variable()
		if err != nil {
			return err
		}
		v.extern = extern
		p.mod.vars = append(p.mod.vars, v)
		return nil
	}
	return p.errorf(start, "unexpected %q at module scope", p.peek().text)
}

// variable reads ".space [.align N] .type name[[N]...] [= init];".
func (p *parser) variable() (*varDecl, error) {
	sp := p.next()
	v := &varDecl{space: strings.TrimPrefix(sp.text, "."), line: sp.line, count: 1}
	for {
		t := p.peek()
		if t.text == ".align" {
			p.next()
			n, err := p.integer()
			if err != nil {
				return nil, err
			}
			v.align = n
			continue
		}
		if strings.HasPrefix(t.text, ".") {
			p.next()
			if ty, ok := typeFor(t.text[1:]); ok {
				v.typ = ty
			} else if t.text != ".v2" && t.text != ".v4" {
				return nil, p.errorf(t, "unknown variable modifier %s", t.text)
			} else {
				return nil, &UnsupportedError{Line: t.line, Instruction: sp.text + " " + t.text, Why: "vector variables"}
			}
			continue
		}
		break
	}
	if v.typ.kind == kindNone || v.typ.kind == kindPred {
		return nil, p.errorf(sp, "variable without a data type")
	}
	name, err := p.word()
	if err != nil {
		return nil, err
	}
	v.name = name.text
	for p.accept("[") {
		if p.accept("]") {
			v.count = 0 // unsized: an extern array
			continue
		}
		n, err := p.integer()
		if err != nil {
			return nil, err
		}
		v.count *= n
		if err := p.expect("]"); err != nil {
			return nil, err
		}
	}
	if v.align == 0 {
		v.align = int(v.typ.size)
	}
	if p.accept("=") {
		if p.accept("{") {
			if v.init, err = p.initList(); err != nil {
				return nil, err
			}
		} else {
			a, err := p.operand()
			if err != nil {
				return nil, err
			}
			v.init = []operand{a}
		}
	}
	return v, p.expect(";")
}

// initList reads the values of "{a, b, {c, d}}" after the "{", flattening
// nested braces.
func (p *parser) initList() ([]operand, error) {
	var out []operand
	for !p.accept("}") {
		if p.accept("{") {
			inner, err := p.initList()
			if err != nil {
				return nil, err
			}
			out = append(out, inner...)
		} else {
			a, err := p.operand()
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		}
		if !p.accept(",") && !p.is("}") {
			return nil, p.errorf(p.peek(), "expected , or } in an initializer, found %q", p.peek().text)
		}
	}
	return out, nil
}

func (p *parser) function() error {
	kw := p.next()
	f := &function{entry: kw.text == ".entry", line: kw.line}
	if !f.entry && p.is("(") {
		// A .func's return values: functions are never called here.
		if _, err := p.params(); err != nil {
			return err
		}
	}
	name, err := p.word()
	if err != nil {
		return err
	}
	f.name = name.text
	if p.is("(") {
		if f.params, err = p.params(); err != nil {
			return err
		}
	}
	// Performance directives before the body.
	for {
		t := p.peek()
		switch t.text {
		case ".maxntid", ".reqntid":
			p.next()
			var dims []int
			for {
				n, err := p.integer()
				if err != nil {
					return err
				}
				dims = append(dims, n)
				if !p.accept(",") {
					break
				}
			}
			if t.text == ".maxntid" {
				f.maxntid = dims
			} else {
				f.reqntid = dims
			}
			continue
		case ".minnctapersm", ".maxnctapersm", ".maxnreg", ".noreturn", ".maxclusterrank", ".pragma":
			p.next()
			for !p.eof() && !p.is("{") && !p.is(";") && p.peek().line == t.line {
				p.next()
			}
			p.accept(";")
			continue
		}
		break
	}
	if p.accept(";") {
		p.mod.funcs = append(p.mod.funcs, f)
		return nil
	}
	if err := p.expect("{"); err != nil {
		return err
	}
	f.hasBody = true
	if p.declsOnly {
		if err := p.skipBody(f); err != nil {
			return err
		}
	} else if err := p.body(f); err != nil {
		return err
	}
	p.mod.funcs = append(p.mod.funcs, f)
	return nil
}

// params reads "( .param .type name, ... )".
func (p *parser) params() ([]paramDecl, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var out []paramDecl
	for !p.accept(")") {
		t := p.next()
		if t.text != ".param" && t.text != ".reg" {
			return nil, p.errorf(t, "expected .param, found %q", t.text)
		}
		pd := paramDecl{count: 1}
		for strings.HasPrefix(p.peek().text, ".") {
			m := p.next()
			switch m.text {
			case ".align":
				n, err := p.integer()
				if err != nil {
					return nil, err
				}
				pd.align = n
			case ".ptr", ".global", ".shared", ".local", ".const":
				// pointer annotations: informational only
			default:
				ty, ok := typeFor(m.text[1:])
				if !ok {
					return nil, p.errorf(m, "unknown parameter modifier %s", m.text)
				}
				pd.typ = ty
			}
		}
		name, err := p.word()
		if err != nil {
			return nil, err
		}
		pd.name = name.text
		if p.accept("[") {
			n, err := p.integer()
			if err != nil {
				return nil, err
			}
			pd.count = n
			if err := p.expect("]"); err != nil {
				return nil, err
			}
		}
		if pd.typ.kind == kindNone {
			return nil, p.errorf(name, "parameter %s has no type", pd.name)
		}
		if pd.align == 0 {
			pd.align = int(pd.typ.size)
		}
		out = append(out, pd)
		if !p.accept(",") && !p.is(")") {
			return nil, p.errorf(p.peek(), "expected , or ) in a parameter list, found %q", p.peek().text)
		}
	}
	return out, nil
}

// skipBody skips the statements up to the "}" that closes the function.
func (p *parser) skipBody(f *function) error {
	for depth := 1; depth > 0; {
		if p.eof() {
			return p.errorf(p.peek(), "function %s: missing }", f.name)
		}
		switch p.next().text {
		case "{":
			depth++
		case "}":
			depth--
		}
	}
	return nil
}

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
		case t.text == ".loc" || t.text == ".file":
			p.next()
			p.restOfLine(t.line)
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
