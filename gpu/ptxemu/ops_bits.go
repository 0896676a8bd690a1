package ptxemu

import "math/bits"

// Bit operations (cnot, popc, clz, brev, bfind, bfe, bfi, sad, prmt) and the
// predicate logic of and, or, xor and not on .pred.

// lanes1 applies f to the lanes of mask: d = f(a). The bit operations
// below are rare enough for a call per lane; they take the width and
// signedness from in.t.
func lanes1(w *warp, in *inst, mask uint32, f func(a uint64) uint64) {
	d, a := w.r(in.d), w.r(in.a)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = f(a[l])
		}
	}
}

// widthMask has the low n bits set.
func widthMask(n uint) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return uint64(1)<<n - 1
}

func opCnot(w *warp, in *inst, mask uint32) {
	m := widthMask(in.t.bits())
	lanes1(w, in, mask, func(a uint64) uint64 {
		if a&m == 0 {
			return 1
		}
		return 0
	})
}

func opPopc(w *warp, in *inst, mask uint32) {
	m := widthMask(in.t.bits())
	lanes1(w, in, mask, func(a uint64) uint64 { return uint64(bits.OnesCount64(a & m)) })
}

func opClz(w *warp, in *inst, mask uint32) {
	n := in.t.bits()
	lanes1(w, in, mask, func(a uint64) uint64 {
		return uint64(bits.LeadingZeros64(a&widthMask(n)) - (64 - int(n)))
	})
}

func opBrev(w *warp, in *inst, mask uint32) {
	n := in.t.bits()
	lanes1(w, in, mask, func(a uint64) uint64 { return bits.Reverse64(a) >> (64 - n) })
}

// opBfind finds the most significant bit that is not a sign bit (signed
// types) or that is set (unsigned); 0xFFFFFFFF if none. .shiftamt (in.sat)
// returns the left shift that would bring that bit to the top instead.
func opBfind(w *warp, in *inst, mask uint32) {
	n := in.t.bits()
	m := widthMask(n)
	lanes1(w, in, mask, func(a uint64) uint64 {
		u := a & m
		if in.t.signed() && u>>(n-1)&1 != 0 {
			u = ^u & m
		}
		if u == 0 {
			return 0xFFFFFFFF
		}
		pos := uint64(63 - bits.LeadingZeros64(u))
		if in.sat {
			return uint64(n-1) - pos
		}
		return pos
	})
}

// opBfe extracts len bits from pos (both taken from their low 8 bits),
// sign-extending from the field's top bit for signed types (bits beyond
// the value repeat its sign bit, or are 0 when len is 0).
func opBfe(w *warp, in *inst, mask uint32) {
	d, a, b, c := w.r(in.d), w.r(in.a), w.r(in.b), w.r(in.c)
	width := in.t.bits()
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		v := a[l] & widthMask(width)
		pos, n := uint(uint8(b[l])), uint(uint8(c[l]))
		sbit := false
		if in.t.signed() && n > 0 {
			sbit = v>>min(pos+n-1, width-1)&1 != 0
		}
		var r uint64
		for i := range width {
			bit := sbit
			if i < n && pos+i < width {
				bit = v>>(pos+i)&1 != 0
			}
			if bit {
				r |= 1 << i
			}
		}
		d[l] = r
	}
}

// opBfi inserts the low len bits of a into b at pos.
func opBfi(w *warp, in *inst, mask uint32) {
	d, a, b, c, e := w.r(in.d), w.r(in.a), w.r(in.b), w.r(in.c), w.r(in.e)
	width := in.t.bits()
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		pos, n := uint(uint8(c[l])), uint(uint8(e[l]))
		r := b[l] & widthMask(width)
		for i := uint(0); i < n && pos+i < width; i++ {
			bit := uint64(1) << (pos + i)
			if a[l]>>i&1 != 0 {
				r |= bit
			} else {
				r &^= bit
			}
		}
		d[l] = r
	}
}

// opSad is |a-b| + c.
func opSad[T anyInt](w *warp, in *inst, mask uint32) {
	d, a, b, c := w.r(in.d), w.r(in.a), w.r(in.b), w.r(in.c)
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		x, y := T(a[l]), T(b[l])
		diff := x - y
		if y > x {
			diff = y - x
		}
		d[l] = uint64(diff + T(c[l]))
	}
}

// opPrmt picks 4 bytes of {b, a} by the nibbles of c (default mode; a
// nibble's bit 3 replicates the chosen byte's sign bit).
func opPrmt(w *warp, in *inst, mask uint32) {
	d, a, b, c := w.r(in.d), w.r(in.a), w.r(in.b), w.r(in.c)
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		src := uint64(uint32(a[l])) | uint64(uint32(b[l]))<<32
		var r uint32
		for i := range 4 {
			sel := uint32(c[l]) >> (4 * i) & 0xF
			byteV := uint32(src >> (8 * (sel & 7)) & 0xFF)
			if sel&8 != 0 {
				if byteV&0x80 != 0 {
					byteV = 0xFF
				} else {
					byteV = 0
				}
			}
			r |= byteV << (8 * i)
		}
		d[l] = uint64(r)
	}
}

// Predicate logic: and, or, xor, not on .pred.
const (
	predAnd = iota
	predOr
	predXor
	predNot
)

func decodePredLogic(d *decoder, s *stmt, m *modset, in *inst, op string) error {
	m.takeType()
	n := 2
	switch op {
	case "and":
		in.mode = predAnd
	case "or":
		in.mode = predOr
	case "xor":
		in.mode = predXor
	case "not":
		in.mode, n = predNot, 1
	default:
		return unsupported(s, "")
	}
	if err := args(s, n+1); err != nil {
		return err
	}
	var err error
	if in.pd, err = d.predDst(s, s.args[0]); err != nil {
		return err
	}
	if in.pa, in.paNeg, err = d.predSrc(s, s.args[1]); err != nil {
		return err
	}
	if n == 2 {
		if in.pb, in.pbNeg, err = d.predSrc(s, s.args[2]); err != nil {
			return err
		}
	}
	in.fn = opPredLogic
	return nil
}

func opPredLogic(w *warp, in *inst, mask uint32) {
	a := w.preds[in.pa]
	if in.paNeg {
		a = ^a
	}
	var b uint32
	if in.pb >= 0 {
		b = w.preds[in.pb]
		if in.pbNeg {
			b = ^b
		}
	}
	switch in.mode {
	case predAnd:
		a &= b
	case predOr:
		a |= b
	case predXor:
		a ^= b
	default:
		a = ^a
	}
	w.setPred(in.pd, a, mask)
}
