package ptxemu

import (
	"fmt"
	"strings"
)

// The parser proper: tokens to a module (ast.go); parse_body.go reads
// function bodies.

// parser reads tokens into a module.
type parser struct {
	toks []token
	pos  int
	mod  *module
	// declsOnly skips function bodies (ParseDecls): the declarations of
	// PTX whose instructions the interpreter does not know.
	declsOnly bool
	// loc is the source position of the last .loc, which the
	// instructions after it get.
	loc srcPos
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

// fileDirective reads `.file N "name"` (and skips the timestamp and size
// that may follow) into the module's file table.
func (p *parser) fileDirective() {
	t := p.next()
	idx, err := parseInt(p.peek().text)
	if err == nil && p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind == tokString && p.toks[p.pos+1].line == t.line {
		if p.mod.files == nil {
			p.mod.files = map[int]string{}
		}
		p.mod.files[int(idx)] = p.toks[p.pos+1].text
	}
	p.restOfLine(t.line)
}

// locDirective reads `.loc FILE LINE [COLUMN]` (and skips what may follow,
// such as inlined_at): the instructions after it come from that line.
func (p *parser) locDirective() {
	t := p.next()
	var nums [2]int64
	ok := true
	for i := range nums {
		if p.eof() || p.peek().line != t.line {
			ok = false
			break
		}
		v, err := parseInt(p.next().text)
		ok = ok && err == nil
		nums[i] = v
	}
	if ok {
		p.loc = srcPos{file: int32(nums[0]), line: int32(nums[1])}
	}
	p.restOfLine(t.line)
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
		case ".file":
			p.fileDirective()
		case ".loc":
			p.locDirective()
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
