package ptxemu

// Packed 16-bit integer arithmetic (PTX ISA 8.0, sm_90): add, min and max
// on .u16x2 and .s16x2 treat a .b32 operand as two 16-bit halves, bits
// 0-15 and 16-31, and compute each half on its own: a sum wraps modulo
// 2^16 within its half, with no carry into the other, and min and max
// compare the halves as unsigned (.u16x2) or signed (.s16x2) values.
// min.relu.s16x2 and max.relu.s16x2 then clamp each result half below at
// 0. decodeArith hands these types here.

// decodePacked16 decodes add, min or max (op) of type .s16x2 (signed) or
// .u16x2. Other modifiers (.relu on .u16x2, .sat, .cc) are left to make
// the instruction unsupported.
func decodePacked16(d *decoder, s *stmt, m *modset, in *inst, op string, signed bool) error {
	var fn execFn
	switch op {
	case "add":
		fn = opAdd16x2
	case "min", "max":
		relu := signed && m.take("relu")
		switch {
		case relu:
			fn = choose(op == "min", opMinRelu16x2, opMaxRelu16x2)
		case signed:
			fn = choose(op == "min", opMin16x2[int16], opMax16x2[int16])
		default:
			fn = choose(op == "min", opMin16x2[uint16], opMax16x2[uint16])
		}
	default:
		return unsupported(s, "")
	}
	in.t = typeNames["b32"]
	if err := d.dstArgs(s, in, 3); err != nil {
		return err
	}
	if err := d.srcs(s, in, in.t, 1, 2); err != nil {
		return err
	}
	in.fn = fn
	return nil
}

// pack16x2 joins two 16-bit halves into the bits of a .b32 register.
func pack16x2[T int16 | uint16](lo, hi T) uint64 {
	return uint64(uint16(lo)) | uint64(uint16(hi))<<16
}

// opAdd16x2 adds halves; .u16x2 and .s16x2 give the same bits.
func opAdd16x2(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = pack16x2(uint16(a[l])+uint16(b[l]), uint16(a[l]>>16)+uint16(b[l]>>16))
		}
	}
}

func opMin16x2[T int16 | uint16](w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = pack16x2(min(T(a[l]), T(b[l])), min(T(a[l]>>16), T(b[l]>>16)))
		}
	}
}

func opMax16x2[T int16 | uint16](w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = pack16x2(max(T(a[l]), T(b[l])), max(T(a[l]>>16), T(b[l]>>16)))
		}
	}
}

// opMinRelu16x2 is min.relu.s16x2: the signed minimum of each half, or 0
// if that is negative.
func opMinRelu16x2(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			lo := max(min(int16(a[l]), int16(b[l])), 0)
			hi := max(min(int16(a[l]>>16), int16(b[l]>>16)), 0)
			d[l] = pack16x2(lo, hi)
		}
	}
}

// opMaxRelu16x2 is max.relu.s16x2: the signed maximum of each half, or 0
// if that is negative.
func opMaxRelu16x2(w *warp, in *inst, mask uint32) {
	d, a, b := w.r(in.d), w.r(in.a), w.r(in.b)
	for l := range 32 {
		if mask>>l&1 != 0 {
			lo := max(int16(a[l]), int16(b[l]), 0)
			hi := max(int16(a[l]>>16), int16(b[l]>>16), 0)
			d[l] = pack16x2(lo, hi)
		}
	}
}
