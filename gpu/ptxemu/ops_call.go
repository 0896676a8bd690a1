package ptxemu

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
)

// Device-side printf. nvcc compiles printf(fmt, args...) to a call of the
// CUDA runtime's vprintf(fmt, buf): the arguments packed in a .local
// buffer, each aligned to its size (floats promoted to double), and two
// 64-bit generic pointers passed through .param variables of a call
// sequence:
//
//	{ // callseq 0, 0
//	.param .b64 param0;
//	st.param.b64 [param0+0], %rd4;    // the format string (generic address)
//	.param .b64 param1;
//	st.param.b64 [param1+0], %rd1;    // the argument buffer (generic address)
//	.param .b32 retval0;
//	call.uni (retval0), vprintf, (param0, param1);
//	ld.param.b32 %r1, [retval0+0];
//	}
//
// That call is the only one the interpreter runs; calls of any other
// function stay unsupported.

func init() { decoders["call"] = decodeCall }

// printfLimit bounds one launch's printf output, as CUDA's printf FIFO
// (1 MiB by default) does; the rest is dropped with a note.
const printfLimit = 1 << 20

// printfOutput collects one launch's printf output, in the order the
// threads executed their printf calls.
type printfOutput struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	dropped int
}

func (p *printfOutput) write(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.buf.Len()+len(s) > printfLimit {
		p.dropped++
		return
	}
	p.buf.WriteString(s)
}

// flush writes the collected output to w.
func (p *printfOutput) flush(w io.Writer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dropped > 0 {
		fmt.Fprintf(&p.buf, "[ptxemu: %d printf calls dropped: more than %d bytes of output in one launch, as CUDA's default printf buffer]\n", p.dropped, printfLimit)
	}
	if p.buf.Len() > 0 && w != nil {
		_, _ = w.Write(p.buf.Bytes())
	}
	p.buf.Reset()
	p.dropped = 0
}

// SetPrintfOutput sets where the device-side printf output of later
// launches goes (nil discards it). Each launch writes its output when it
// ends.
func (d *Device) SetPrintfOutput(w io.Writer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.printf = w
}

// decodeCall decodes "call[.uni] (ret), vprintf, (fmt, args)".
func decodeCall(d *decoder, s *stmt, m *modset, in *inst) error {
	m.take("uni")
	a := s.args
	var ret operand
	if len(a) > 0 && a[0].kind == argParen {
		if len(a[0].elems) != 1 {
			return errorf(s, "a call with %d return values", len(a[0].elems))
		}
		ret, a = a[0].elems[0], a[1:]
	}
	if len(a) == 0 || a[0].kind != argWord {
		return errorf(s, "call without a function name")
	}
	if a[0].word != "vprintf" {
		return unsupported(s, "calls of .func functions (only printf's vprintf is run)")
	}
	if len(a) != 2 || a[1].kind != argParen || len(a[1].elems) != 2 {
		return errorf(s, "vprintf takes (format, arguments)")
	}
	slot := func(op operand) (int32, error) {
		sym, ok := d.syms[op.word]
		if !ok || !sym.call || sym.size < 4 {
			return 0, errorf(s, "%s is not a .param variable of the call sequence", op.word)
		}
		return int32(sym.addr), nil
	}
	in.vec = []int32{-1, -1, -1} // local offsets of format, arguments, return value
	for i, op := range a[1].elems {
		off, err := slot(op)
		if err != nil {
			return err
		}
		in.vec[i] = off
	}
	if ret.word != "" {
		off, err := slot(ret)
		if err != nil {
			return err
		}
		in.vec[2] = off
	}
	in.fn = opPrintf
	return nil
}

// opPrintf formats each active lane's printf, lanes in order.
func opPrintf(w *warp, in *inst, mask uint32) {
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		format, ok := w.loadLocal(in, l, in.vec[0], 8)
		if !ok {
			return
		}
		argBuf, ok := w.loadLocal(in, l, in.vec[1], 8)
		if !ok {
			return
		}
		text, nargs, ok := w.sprintf(in, l, format, argBuf)
		if !ok {
			return
		}
		w.blk.l.printf.write(text)
		if in.vec[2] >= 0 {
			p, _ := w.resolve(in, l, spaceLocal, uint64(in.vec[2]), 4, true)
			if p == nil {
				return
			}
			storeRaw(p, 4, uint64(nargs), false)
		}
	}
}

// loadLocal reads size bytes of lane l's local frame at off.
func (w *warp) loadLocal(in *inst, l int, off int32, size uint8) (uint64, bool) {
	p, _ := w.resolve(in, l, spaceLocal, uint64(off), uint64(size), false)
	if p == nil {
		return 0, false
	}
	return loadRaw(p, size, false), true
}

// load reads size bytes at a generic address for lane l.
func (w *warp) load(in *inst, l int, addr uint64, size uint8) (uint64, bool) {
	p, sp := w.resolve(in, l, spaceGeneric, addr, uint64(size), false)
	if p == nil {
		return 0, false
	}
	return loadRaw(p, size, sp == spaceGlobal), true
}

// cString reads a NUL-terminated string at a generic address.
func (w *warp) cString(in *inst, l int, addr uint64) (string, bool) {
	var sb strings.Builder
	for i := uint64(0); i < printfLimit; i++ {
		c, ok := w.load(in, l, addr+i, 1)
		if !ok {
			return "", false
		}
		if c == 0 {
			break
		}
		sb.WriteByte(byte(c))
	}
	return sb.String(), true
}

// sprintf formats as CUDA's printf does: the conversions %d %i %u %x %X
// %o %c %s %p %f %F %e %E %g %G %a %A and %%, with flags, width and
// precision (also *), and the length modifiers h, hh, l, ll, z, j, t; an
// argument takes 4 bytes (int, char) or 8 (long, pointers, doubles),
// aligned to its size, as nvcc packs them. It returns the text and the
// number of arguments.
func (w *warp) sprintf(in *inst, l int, format, args uint64) (string, int, bool) {
	f, ok := w.cString(in, l, format)
	if !ok {
		return "", 0, false
	}
	var out strings.Builder
	off, nargs := uint64(0), 0
	next := func(size uint8) (uint64, bool) {
		off = (off + uint64(size) - 1) / uint64(size) * uint64(size)
		v, ok := w.load(in, l, args+off, size)
		off += uint64(size)
		nargs++
		return v, ok
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			out.WriteByte(f[i])
			continue
		}
		j := i + 1
		spec := strings.Builder{}
		spec.WriteByte('%')
		for j < len(f) && strings.IndexByte("-+ #0", f[j]) >= 0 {
			spec.WriteByte(f[j])
			j++
		}
		// width and precision, each a number or *
		for part := 0; part < 2; part++ {
			if part == 1 {
				if j >= len(f) || f[j] != '.' {
					break
				}
				spec.WriteByte('.')
				j++
			}
			if j < len(f) && f[j] == '*' {
				v, ok := next(4)
				if !ok {
					return "", 0, false
				}
				spec.WriteString(strconv.Itoa(int(int32(v))))
				j++
				continue
			}
			for j < len(f) && f[j] >= '0' && f[j] <= '9' {
				spec.WriteByte(f[j])
				j++
			}
		}
		long := false
		for j < len(f) && strings.IndexByte("hlzjtL", f[j]) >= 0 {
			long = long || strings.IndexByte("lzjt", f[j]) >= 0
			j++
		}
		if j >= len(f) {
			out.WriteString(f[i:])
			break
		}
		conv := f[j]
		i = j
		size := uint8(4)
		if long {
			size = 8
		}
		switch conv {
		case '%':
			out.WriteByte('%')
		case 'd', 'i':
			v, ok := next(size)
			if !ok {
				return "", 0, false
			}
			n := int64(v)
			if size == 4 {
				n = int64(int32(v))
			}
			fmt.Fprintf(&out, spec.String()+"d", n)
		case 'u', 'x', 'X', 'o':
			v, ok := next(size)
			if !ok {
				return "", 0, false
			}
			if size == 4 {
				v = uint64(uint32(v))
			}
			c := conv
			if c == 'u' {
				c = 'd'
			}
			fmt.Fprintf(&out, spec.String()+string(c), v)
		case 'c':
			v, ok := next(4)
			if !ok {
				return "", 0, false
			}
			fmt.Fprintf(&out, spec.String()+"c", rune(byte(v)))
		case 'f', 'F', 'e', 'E', 'g', 'G':
			v, ok := next(8)
			if !ok {
				return "", 0, false
			}
			out.WriteString(cFloat(spec.String(), conv, math.Float64frombits(v)))
		case 'a', 'A':
			v, ok := next(8)
			if !ok {
				return "", 0, false
			}
			c := 'x'
			if conv == 'A' {
				c = 'X'
			}
			fmt.Fprintf(&out, spec.String()+string(c), math.Float64frombits(v))
		case 's':
			v, ok := next(8)
			if !ok {
				return "", 0, false
			}
			str := "(null)"
			if v != 0 {
				if str, ok = w.cString(in, l, v); !ok {
					return "", 0, false
				}
			}
			fmt.Fprintf(&out, spec.String()+"s", str)
		case 'p':
			v, ok := next(8)
			if !ok {
				return "", 0, false
			}
			fmt.Fprintf(&out, "0x%x", v)
		default:
			out.WriteString(f[i-len(spec.String())+1 : j+1])
		}
	}
	return out.String(), nargs, true
}

// cFloat formats a double as C's printf does: Go's %f, %e and %g agree
// with C's except for the exponent of %e (C gives at least two digits,
// as Go does) and for infinities and NaN ("inf", "nan" in C).
func cFloat(spec string, conv byte, v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		s := "nan"
		switch {
		case math.IsInf(v, 1):
			s = "inf"
			if strings.Contains(spec, "+") {
				s = "+inf"
			}
		case math.IsInf(v, -1):
			s = "-inf"
		}
		if conv >= 'A' && conv <= 'Z' {
			s = strings.ToUpper(s)
		}
		width := strings.TrimLeft(spec[1:], "-+ #0")
		if k := strings.IndexByte(width, '.'); k >= 0 {
			width = width[:k]
		}
		n, _ := strconv.Atoi(width)
		if strings.Contains(spec, "-") {
			return fmt.Sprintf("%-*s", n, s)
		}
		return fmt.Sprintf("%*s", n, s)
	}
	c := conv
	if c == 'F' {
		c = 'f'
	}
	if (c == 'g' || c == 'G') && !strings.Contains(spec, ".") {
		spec += ".6" // C's default precision; Go's %g would print the shortest form
	}
	return fmt.Sprintf(spec+string(c), v)
}
