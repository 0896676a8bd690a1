package ptxemu

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// specialKind names a special register.
type specialKind uint8

const (
	spTidX specialKind = iota
	spTidY
	spTidZ
	spWarpid
	spNtidX
	spNtidY
	spNtidZ
	spCtaidX
	spCtaidY
	spCtaidZ
	spNctaidX
	spNctaidY
	spNctaidZ
	spLaneid
	spNwarpid
	spSmid
	spNsmid
	spLanemaskEq
	spLanemaskLt
	spLanemaskLe
	spLanemaskGt
	spLanemaskGe
	spDynSmem
	spTotalSmem
)

var specialNames = map[string]specialKind{
	"%tid.x": spTidX, "%tid.y": spTidY, "%tid.z": spTidZ, "%warpid": spWarpid,
	"%ntid.x": spNtidX, "%ntid.y": spNtidY, "%ntid.z": spNtidZ,
	"%ctaid.x": spCtaidX, "%ctaid.y": spCtaidY, "%ctaid.z": spCtaidZ,
	"%nctaid.x": spNctaidX, "%nctaid.y": spNctaidY, "%nctaid.z": spNctaidZ,
	"%laneid": spLaneid, "%nwarpid": spNwarpid, "%smid": spSmid, "%nsmid": spNsmid,
	"%lanemask_eq": spLanemaskEq, "%lanemask_lt": spLanemaskLt, "%lanemask_le": spLanemaskLe,
	"%lanemask_gt": spLanemaskGt, "%lanemask_ge": spLanemaskGe,
	"%dynamic_smem_size": spDynSmem, "%total_smem_size": spTotalSmem,
}

// Clocks: read by mov at run time rather than filled in before it.
var clockNames = map[string]uint8{"%clock": clockLo, "%clock_hi": clockHi, "%clock64": clock64, "%globaltimer": timer64,
	"%globaltimer_lo": timerLo, "%globaltimer_hi": timerHi}

// regRef is a declared register.
type regRef struct {
	idx  int32
	typ  ptxType
	pred bool
}

// symbol is a variable in a state space.
type symbol struct {
	sp   space
	addr uint64 // offset in the space; the device address for .global
	// call marks a .param variable of a call sequence, which lives in
	// the thread's local frame (ld.param and st.param reach it there).
	call bool
	size int
}

// decoder turns one function's statements into a Kernel's code.
type decoder struct {
	k        *Kernel
	mod      *Module
	scopes   []map[string]regRef
	labels   map[string]int32
	fixups   []fixup
	consts   map[uint64]int32
	specials map[specialKind]int32
	syms     map[string]symbol
	sink     int32
	sinkPred int32
	errs     []error
}

type fixup struct {
	at    int
	label string
	line  int
}

// decodeKernel decodes entry f of module m.
func decodeKernel(m *Module, f *function) (*Kernel, []error) {
	k := &Kernel{name: f.name, mod: m, dev: m.dev, maxntid: f.maxntid, reqntid: f.reqntid}
	d := &decoder{k: k, mod: m, labels: map[string]int32{}, consts: map[uint64]int32{},
		specials: map[specialKind]int32{}, syms: map[string]symbol{}, sink: -1, sinkPred: -1}
	d.layout(f)
	d.scopes = []map[string]regRef{{}}
	located := false // some instruction has a .loc
	for i := range f.body {
		s := &f.body[i]
		switch s.kind {
		case stmtOpen:
			d.scopes = append(d.scopes, map[string]regRef{})
		case stmtClose:
			d.scopes = d.scopes[:len(d.scopes)-1]
		case stmtReg:
			d.declare(s)
		case stmtLabel:
			d.labels[s.label] = int32(len(k.code))
		case stmtInst:
			in, err := d.instruction(s)
			if err != nil {
				d.errs = append(d.errs, err)
				continue
			}
			k.code = append(k.code, in)
			k.src = append(k.src, s.src)
			located = located || s.src.line > 0
		}
	}
	// Falling off the end of a kernel ends its threads.
	k.code = append(k.code, inst{fn: opExit, ctrl: true, guard: -1, line: int32(f.line), text: "(end of kernel " + f.name + ")"})
	k.src = append(k.src, srcPos{})
	if !located {
		k.src = nil
	}
	for _, fx := range d.fixups {
		t, ok := d.labels[fx.label]
		if !ok {
			d.errs = append(d.errs, &SyntaxError{Line: fx.line, Msg: fmt.Sprintf("branch to undefined label %s", fx.label)})
			continue
		}
		k.code[fx.at].target = t
	}
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	return k, nil
}

// layout places the parameters, the shared and local variables (module
// scope first, then the function's) and the dynamic shared array.
func (d *decoder) layout(f *function) {
	k := d.k
	k.params, k.paramBytes = paramLayout(f.params)
	for _, p := range k.params {
		d.syms[p.Name] = symbol{sp: spaceParam, addr: uint64(p.Offset)}
	}
	for name, a := range d.mod.globals {
		d.syms[name] = symbol{sp: spaceGlobal, addr: a.addr}
	}
	for name, o := range d.mod.constOff {
		d.syms[name] = symbol{sp: spaceConst, addr: uint64(o)}
	}
	vars := append([]*varDecl(nil), d.mod.vars...)
	for _, s := range f.body {
		if s.kind == stmtVar {
			vars = append(vars, s.v)
		}
	}
	shared, local, dynAlign := 0, 0, 16
	var dynamic []string
	for _, v := range vars {
		switch {
		case v.space == "shared" && (v.extern || v.count == 0):
			dynamic = append(dynamic, v.name)
			dynAlign = max(dynAlign, v.align)
		case v.space == "shared":
			shared = int(roundUp(uint64(shared), uint64(max(v.align, 1))))
			d.syms[v.name] = symbol{sp: spaceShared, addr: uint64(shared)}
			shared += v.bytes()
		case v.space == "local":
			local = int(roundUp(uint64(local), uint64(max(v.align, 1))))
			d.syms[v.name] = symbol{sp: spaceLocal, addr: uint64(local)}
			local += v.bytes()
		case v.space == "param":
			// nvcc declares param0, param1, retval0 afresh in every call
			// sequence; one slot per name serves them all (their lives
			// do not overlap), grown if a later one is larger.
			if old, ok := d.syms[v.name]; ok && old.call && old.size >= v.bytes() {
				continue
			}
			local = int(roundUp(uint64(local), uint64(max(v.align, 1))))
			d.syms[v.name] = symbol{sp: spaceLocal, addr: uint64(local), call: true, size: v.bytes()}
			local += v.bytes()
		default:
			d.errs = append(d.errs, &UnsupportedError{Line: v.line, Instruction: "." + v.space + " " + v.name, Why: "variables of this state space inside a function"})
		}
	}
	k.dynOffset = int(roundUp(uint64(shared), uint64(dynAlign)))
	for _, name := range dynamic {
		d.syms[name] = symbol{sp: spaceShared, addr: uint64(k.dynOffset)}
	}
	k.localBytes = int(roundUp(uint64(local), 8))
}

// declare adds the registers of a .reg statement to the innermost scope.
func (d *decoder) declare(s *stmt) {
	scope := d.scopes[len(d.scopes)-1]
	add := func(name string, t ptxType) {
		r := regRef{typ: t, pred: t.kind == kindPred}
		if r.pred {
			r.idx = int32(d.k.npreds)
			d.k.npreds++
		} else {
			r.idx = int32(d.k.nregs)
			d.k.nregs++
		}
		scope[name] = r
	}
	for _, r := range s.regs {
		if r.n == 0 {
			add(r.name, r.typ)
			continue
		}
		for i := range r.n {
			add(r.name+strconv.Itoa(i), r.typ)
		}
	}
}

// lookup finds a declared register.
func (d *decoder) lookup(name string) (regRef, bool) {
	for i := len(d.scopes) - 1; i >= 0; i-- {
		if r, ok := d.scopes[i][name]; ok {
			return r, true
		}
	}
	return regRef{}, false
}

// newReg allocates an anonymous register slot.
func (d *decoder) newReg() int32 {
	d.k.nregs++
	return int32(d.k.nregs - 1)
}

// constant returns a register slot that holds v in every lane.
func (d *decoder) constant(v uint64) int32 {
	if r, ok := d.consts[v]; ok {
		return r
	}
	r := d.newReg()
	d.consts[v] = r
	d.k.consts = append(d.k.consts, constReg{r, v})
	return r
}

// errorf makes a syntax error at s.
func errorf(s *stmt, format string, args ...any) error {
	return &SyntaxError{Line: s.line, Msg: s.text + ": " + fmt.Sprintf(format, args...)}
}

// unsupported makes the error for an instruction outside the subset.
func unsupported(s *stmt, why string) error {
	return &UnsupportedError{Line: s.line, Instruction: s.text, Why: why}
}

// src resolves a source operand of type t to a register slot: a register,
// a special register, an immediate or the address of a variable.
func (d *decoder) src(s *stmt, op operand, t ptxType) (int32, error) {
	if op.not {
		return 0, errorf(s, "! applies only to predicates")
	}
	switch op.kind {
	case argNum:
		v, err := immediate(op, t)
		if err != nil {
			return 0, errorf(s, "%v", err)
		}
		return d.constant(v), nil
	case argWord:
		if r, ok := d.lookup(op.word); ok {
			if r.pred {
				return 0, errorf(s, "%s is a predicate, not a data register", op.word)
			}
			return r.idx, nil
		}
		if k, ok := specialNames[op.word]; ok {
			if r, ok := d.specials[k]; ok {
				return r, nil
			}
			r := d.newReg()
			d.specials[k] = r
			d.k.specials = append(d.k.specials, specialReg{r, k})
			return r, nil
		}
		if _, ok := clockNames[op.word]; ok {
			return 0, unsupported(s, op.word+" outside mov")
		}
		if sym, ok := d.syms[op.word]; ok {
			return d.constant(sym.addr), nil
		}
		if strings.HasPrefix(op.word, "%") {
			if strings.HasPrefix(op.word, "%envreg") || strings.HasPrefix(op.word, "%pm") || op.word == "%gridid" {
				return 0, unsupported(s, "special register "+op.word)
			}
			return 0, errorf(s, "undeclared register %s", op.word)
		}
		return 0, errorf(s, "undefined symbol %s", op.word)
	}
	return 0, errorf(s, "expected a register or a value")
}

// dst resolves a destination register ("_" discards).
func (d *decoder) dst(s *stmt, op operand) (int32, error) {
	switch op.kind {
	case argSink:
		if d.sink < 0 {
			d.sink = d.newReg()
		}
		return d.sink, nil
	case argWord:
		r, ok := d.lookup(op.word)
		if !ok {
			if _, special := specialNames[op.word]; special {
				return 0, errorf(s, "special register %s is read-only", op.word)
			}
			return 0, errorf(s, "undeclared register %s", op.word)
		}
		if r.pred {
			return 0, errorf(s, "%s is a predicate, not a data register", op.word)
		}
		return r.idx, nil
	}
	return 0, errorf(s, "expected a destination register")
}

// regWidth returns the declared size in bytes of a register operand, 0 if
// it is not a register.
func (d *decoder) regWidth(op operand) int {
	if op.kind == argWord {
		if r, ok := d.lookup(op.word); ok && !r.pred {
			return int(r.typ.size)
		}
	}
	return 0
}

// predSrc resolves a predicate source and whether it is negated.
func (d *decoder) predSrc(s *stmt, op operand) (int32, bool, error) {
	if op.kind != argWord {
		return 0, false, unsupported(s, "predicate operands other than predicate registers")
	}
	r, ok := d.lookup(op.word)
	if !ok || !r.pred {
		return 0, false, errorf(s, "%s is not a predicate register", op.word)
	}
	return r.idx, op.not, nil
}

// predDst resolves a predicate destination ("_" discards).
func (d *decoder) predDst(s *stmt, op operand) (int32, error) {
	if op.kind == argSink {
		if d.sinkPred < 0 {
			d.sinkPred = int32(d.k.npreds)
			d.k.npreds++
		}
		return d.sinkPred, nil
	}
	if op.not {
		return 0, errorf(s, "a destination cannot be negated")
	}
	r, ok := d.lookup(op.word)
	if op.kind != argWord || !ok || !r.pred {
		return 0, errorf(s, "%s is not a predicate register", op.word)
	}
	return r.idx, nil
}

// callParam reports whether an address operand names a .param variable of
// a call sequence.
func (d *decoder) callParam(op operand) bool {
	if _, isReg := d.lookup(op.word); isReg {
		return false
	}
	sym, ok := d.syms[op.word]
	return ok && sym.call
}

// address resolves [base+offset] for an access in state space sp: base is
// a register (or -1) and off the constant part, including a variable's
// address. Symbols must live in sp (or any space for generic accesses).
func (d *decoder) address(s *stmt, op operand, sp space) (base int32, off uint64, err error) {
	if op.kind != argAddr {
		return 0, 0, errorf(s, "expected an address [...]")
	}
	off = uint64(op.off)
	if op.word == "" {
		return -1, off, nil
	}
	if r, ok := d.lookup(op.word); ok {
		if r.pred {
			return 0, 0, errorf(s, "%s is a predicate, not an address", op.word)
		}
		return r.idx, off, nil
	}
	sym, ok := d.syms[op.word]
	if !ok {
		return 0, 0, errorf(s, "undefined symbol %s in an address", op.word)
	}
	switch {
	case sp == spaceGeneric:
		return -1, off + genericOf(sym), nil
	case sym.call && sp == spaceParam:
		return -1, off + sym.addr, nil
	case sym.sp != sp:
		return 0, 0, errorf(s, "%s is a .%s variable, not .%s", op.word, sym.sp, sp)
	}
	return -1, off + sym.addr, nil
}

// genericOf is a variable's generic address.
func genericOf(sym symbol) uint64 {
	switch sym.sp {
	case spaceShared:
		return sharedWindow + sym.addr
	case spaceLocal:
		return localWindow + sym.addr
	case spaceConst:
		return constWindow + sym.addr
	case spaceParam:
		return paramWindow + sym.addr
	}
	return sym.addr
}

// immediate encodes a numeric literal as the register bits of type t.
func immediate(op operand, t ptxType) (uint64, error) {
	w := op.word
	hexFloat := len(w) > 2 && w[0] == '0' && (w[1] == 'f' || w[1] == 'F' || w[1] == 'd' || w[1] == 'D')
	isFloatLit := hexFloat || strings.ContainsAny(w, ".eE") && !strings.HasPrefix(w, "0x") && !strings.HasPrefix(w, "0X")
	if !isFloatLit {
		v, err := parseInt(w)
		if err != nil {
			return 0, fmt.Errorf("bad number %q", w)
		}
		if op.minus {
			v = -v
		}
		if t.kind == kindFloat {
			if t.size == 4 {
				return uint64(math.Float32bits(float32(v))), nil
			}
			return math.Float64bits(float64(v)), nil
		}
		return uint64(v), nil
	}
	var f float64
	switch {
	case hexFloat && (w[1] == 'f' || w[1] == 'F'):
		b, err := strconv.ParseUint(w[2:], 16, 32)
		if err != nil || len(w) != 10 {
			return 0, fmt.Errorf("bad single-precision literal %q", w)
		}
		f = float64(math.Float32frombits(uint32(b)))
		if t.kind == kindBits && !op.minus {
			return b, nil
		}
	case hexFloat:
		b, err := strconv.ParseUint(w[2:], 16, 64)
		if err != nil || len(w) != 18 {
			return 0, fmt.Errorf("bad double-precision literal %q", w)
		}
		f = math.Float64frombits(b)
		if t.kind == kindBits && !op.minus {
			return b, nil
		}
	default:
		var err error
		if f, err = strconv.ParseFloat(w, 64); err != nil {
			return 0, fmt.Errorf("bad number %q", w)
		}
	}
	if op.minus {
		f = -f
	}
	switch {
	case t.kind == kindFloat && t.size == 4, t.kind == kindBits && t.size == 4:
		return uint64(math.Float32bits(float32(f))), nil
	case t.kind == kindFloat, t.kind == kindBits && t.size == 8:
		return math.Float64bits(f), nil
	}
	return 0, fmt.Errorf("floating-point literal %q for a .%s operand", w, t)
}

// opDecoder decodes one operation into in.
type opDecoder func(d *decoder, s *stmt, m *modset, in *inst) error

// decoders maps opcodes (without modifiers) to their decoders; each
// ops_*.go file registers its operations.
var decoders = map[string]opDecoder{}

// instruction decodes statement s.
func (d *decoder) instruction(s *stmt) (inst, error) {
	in := inst{guard: -1, d: -1, a: -1, b: -1, c: -1, e: -1, pd: -1, pd2: -1, pa: -1, pb: -1,
		line: int32(s.line), text: s.text}
	if s.guard != "" {
		r, ok := d.lookup(s.guard)
		if !ok || !r.pred {
			return in, errorf(s, "guard %s is not a predicate register", s.guard)
		}
		in.guard, in.guardNeg = r.idx, s.guardNeg
	}
	parts := strings.Split(s.op, ".")
	dec, ok := decoders[parts[0]]
	if !ok {
		return in, unsupported(s, "")
	}
	m := newModset(parts[1:])
	if err := dec(d, s, m, &in); err != nil {
		return in, err
	}
	if rest := m.rest(); len(rest) > 0 {
		return in, unsupported(s, "modifier "+strings.Join(rest, ""))
	}
	if in.fn == nil {
		return in, unsupported(s, "")
	}
	return in, nil
}

// args checks the operand count.
func args(s *stmt, n ...int) error {
	for _, k := range n {
		if len(s.args) == k {
			return nil
		}
	}
	return errorf(s, "%d operands, want %v", len(s.args), n)
}

// srcs resolves operands from..from+n-1 of type t into in.a, in.b, in.c.
func (d *decoder) srcs(s *stmt, in *inst, t ptxType, from, n int) error {
	dst := []*int32{&in.a, &in.b, &in.c}
	for i := range n {
		r, err := d.src(s, s.args[from+i], t)
		if err != nil {
			return err
		}
		*dst[i] = r
	}
	return nil
}

// dstArgs checks that s has one of the operand counts n and decodes its
// first operand as the destination register in.d.
func (d *decoder) dstArgs(s *stmt, in *inst, n ...int) error {
	if err := args(s, n...); err != nil {
		return err
	}
	var err error
	in.d, err = d.dst(s, s.args[0])
	return err
}

// countOrPred decodes the operands of a warp or block vote: the
// destination, a register (in.d) when toReg (a count or a ballot mask),
// else a predicate (in.pd), and the predicate voted on, s.args[src].
func (d *decoder) countOrPred(s *stmt, in *inst, toReg bool, src int) error {
	var err error
	if toReg {
		in.d, err = d.dst(s, s.args[0])
	} else {
		in.pd, err = d.predDst(s, s.args[0])
	}
	if err != nil {
		return err
	}
	in.pa, in.paNeg, err = d.predSrc(s, s.args[src])
	return err
}
