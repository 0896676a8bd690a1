package ptxemu

import (
	"math"
	"math/big"
)

// cvt: conversions between every integer and float type, with PTX's
// rounding modes and saturation.

func init() {
	decoders["cvt"] = decodeCvt
}

// Rounding modes of cvt.
const (
	rndNone = iota
	rndRN   // float results: nearest even
	rndRZ
	rndRM
	rndRP
	rndRNI // integral results: nearest even
	rndRZI
	rndRMI
	rndRPI
)

var rndNames = map[string]uint8{"rn": rndRN, "rz": rndRZ, "rm": rndRM, "rp": rndRP,
	"rni": rndRNI, "rzi": rndRZI, "rmi": rndRMI, "rpi": rndRPI}

// allInt are the Go types of every PTX integer type.
type allInt interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

func decodeCvt(d *decoder, s *stmt, m *modset, in *inst) error {
	var rnd uint8
	for name, r := range rndNames {
		if m.take(name) {
			rnd = r
		}
	}
	in.ftz, in.sat = m.take("ftz"), m.take("sat")
	dt, ok1 := m.takeType()
	st, ok2 := m.takeType()
	if !ok1 || !ok2 || dt.kind == kindPred || st.kind == kindPred {
		return unsupported(s, "")
	}
	if in.ftz && !(dt.isFloat() && dt.size == 4 || st.isFloat() && st.size == 4) {
		return unsupported(s, "")
	}
	// PTX requires a rounding mode exactly where a value may be rounded.
	switch {
	case dt.isInt() && st.isInt():
		if rnd != rndNone {
			return unsupported(s, "")
		}
	case dt.isInt():
		if rnd < rndRNI {
			return errorf(s, "a float-to-integer conversion needs .rni, .rzi, .rmi or .rpi")
		}
	case st.isInt():
		if rnd == rndNone || rnd >= rndRNI {
			return errorf(s, "an integer-to-float conversion needs .rn, .rz, .rm or .rp")
		}
	case dt.size < st.size:
		if rnd == rndNone || rnd >= rndRNI {
			return errorf(s, "narrowing a float needs .rn, .rz, .rm or .rp")
		}
	case dt.size > st.size:
		if rnd != rndNone {
			return unsupported(s, "")
		}
	default:
		if rnd != rndNone && rnd < rndRNI {
			return unsupported(s, "")
		}
	}
	if err := d.dstArgs(s, in, 2); err != nil {
		return err
	}
	var err error
	if in.a, err = d.src(s, s.args[1], st); err != nil {
		return err
	}
	in.t, in.t2, in.mode = dt, st, rnd
	in.fn = opCvt
	if dt.isInt() && st.isInt() && !in.sat {
		if f := intCvtFn(dt, st); f != nil {
			in.fn = f
		}
	}
	return nil
}

// intCvtFn returns the fast conversion between integer types.
func intCvtFn(dt, st ptxType) execFn {
	type key struct{ d, s uint8 }
	// size and signedness encoded: size | 16 if signed
	enc := func(t ptxType) uint8 {
		if t.signed() {
			return t.size | 16
		}
		return t.size
	}
	fns := map[key]execFn{
		{8 | 16, 4 | 16}: opCvtInt[int64, int32], {8, 4 | 16}: opCvtInt[uint64, int32],
		{8 | 16, 4}: opCvtInt[int64, uint32], {8, 4}: opCvtInt[uint64, uint32],
		{4, 8}: opCvtInt[uint32, uint64], {4 | 16, 8}: opCvtInt[int32, uint64],
		{4, 8 | 16}: opCvtInt[uint32, int64], {4 | 16, 8 | 16}: opCvtInt[int32, int64],
		{4, 4 | 16}: opCvtInt[uint32, int32], {4 | 16, 4}: opCvtInt[int32, uint32],
		{2, 4}: opCvtInt[uint16, uint32], {2 | 16, 4 | 16}: opCvtInt[int16, int32],
		{4, 2}: opCvtInt[uint32, uint16], {4 | 16, 2 | 16}: opCvtInt[int32, int16],
		{4, 1}: opCvtInt[uint32, uint8], {4 | 16, 1 | 16}: opCvtInt[int32, int8],
		{2, 1}: opCvtInt[uint16, uint8], {2 | 16, 1 | 16}: opCvtInt[int16, int8],
		{1, 4}: opCvtInt[uint8, uint32], {1 | 16, 4 | 16}: opCvtInt[int8, int32],
	}
	return fns[key{enc(dt), enc(st)}]
}

// opCvtInt converts between integer types: the source is read as S
// (truncated, then extended by its signedness) and written as D.
func opCvtInt[D, S allInt](w *warp, in *inst, mask uint32) {
	d, a := w.r(in.d), w.r(in.a)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = uint64(D(S(a[l])))
		}
	}
}

func opCvt(w *warp, in *inst, mask uint32) {
	d, a := w.r(in.d), w.r(in.a)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = convert(a[l], in.t, in.t2, in.mode, in.ftz, in.sat)
		}
	}
}

// convert converts register bits v of type st to type dt.
func convert(v uint64, dt, st ptxType, rnd uint8, flush, sat bool) uint64 {
	switch {
	case dt.isInt() && st.isInt():
		return intToInt(v, dt, st, sat)
	case dt.isInt():
		return floatToInt(readFloat(v, st, flush), dt, rnd)
	case st.isInt():
		var f float64
		if st.signed() {
			f = intToFloat(signExtend(v, st.bits()), false, dt, rnd)
		} else {
			f = intToFloat(int64(v&widthMask(st.bits())), true, dt, rnd)
		}
		return writeFloat(saturate(f, sat), dt, flush)
	}
	x := readFloat(v, st, flush)
	switch {
	case rnd >= rndRNI:
		x = roundIntegral(x, rnd)
	case dt.size < st.size:
		return writeFloat32Rounded(saturate(x, sat), rnd, flush)
	}
	return writeFloat(saturate(x, sat), dt, flush)
}

func signExtend(v uint64, n uint) int64 { return int64(v<<(64-n)) >> (64 - n) }

func readFloat(v uint64, t ptxType, flush bool) float64 {
	if t.size == 4 {
		return float64(ftz(fget[float32](v), flush))
	}
	return fget[float64](v)
}

// writeFloat encodes x (exactly representable in t, or a float64 for
// t = .f64) as register bits.
func writeFloat(x float64, t ptxType, flush bool) uint64 {
	if t.size == 4 {
		return fput(ftz(float32(x), flush))
	}
	return fput(x)
}

// writeFloat32Rounded rounds a float64 to float32 in mode rnd.
func writeFloat32Rounded(x float64, rnd uint8, flush bool) uint64 {
	f := float32(x)
	if x == x && float64(f) != x {
		switch rnd {
		case rndRZ:
			if math.Abs(float64(f)) > math.Abs(x) {
				f = math.Nextafter32(f, 0)
			}
		case rndRM:
			if float64(f) > x {
				f = math.Nextafter32(f, float32(math.Inf(-1)))
			}
		case rndRP:
			if float64(f) < x {
				f = math.Nextafter32(f, float32(math.Inf(1)))
			}
		}
	}
	return fput(ftz(f, flush))
}

func roundIntegral(x float64, rnd uint8) float64 {
	switch rnd {
	case rndRNI:
		return math.RoundToEven(x)
	case rndRZI:
		return math.Trunc(x)
	case rndRMI:
		return math.Floor(x)
	}
	return math.Ceil(x)
}

// floatToInt rounds x to an integer and saturates it to dt's range (NaN
// gives 0), as PTX's float-to-integer conversions do.
func floatToInt(x float64, dt ptxType, rnd uint8) uint64 {
	if x != x {
		return 0
	}
	r := roundIntegral(x, rnd)
	n := dt.bits()
	if dt.signed() {
		lo, hi := -math.Ldexp(1, int(n)-1), math.Ldexp(1, int(n)-1)
		switch {
		case r <= lo:
			return ^uint64(0) << (n - 1)
		case r >= hi:
			return widthMask(n - 1)
		}
		return uint64(int64(r))
	}
	hi := math.Ldexp(1, int(n))
	switch {
	case r <= 0:
		return 0
	case r >= hi:
		return widthMask(n)
	}
	return uint64(r)
}

// intToFloat converts an integer (v, or uint64(v) when unsigned) to dt's
// precision in mode rnd.
func intToFloat(v int64, unsigned bool, dt ptxType, rnd uint8) float64 {
	if rnd == rndRN {
		switch {
		case dt.size == 4 && unsigned:
			return float64(float32(uint64(v)))
		case dt.size == 4:
			return float64(float32(v))
		case unsigned:
			return float64(uint64(v))
		}
		return float64(v)
	}
	prec := uint(53)
	if dt.size == 4 {
		prec = 24
	}
	mode := map[uint8]big.RoundingMode{rndRZ: big.ToZero, rndRM: big.ToNegativeInf, rndRP: big.ToPositiveInf}[rnd]
	f := new(big.Float).SetPrec(prec).SetMode(mode)
	if unsigned {
		f.SetUint64(uint64(v))
	} else {
		f.SetInt64(v)
	}
	r, _ := f.Float64()
	return r
}

// intToInt converts between integer types, with .sat clamping to dt's
// range.
func intToInt(v uint64, dt, st ptxType, sat bool) uint64 {
	n := dt.bits()
	if !sat {
		if st.signed() {
			return uint64(signExtend(v, st.bits())) & widthMask(n)
		}
		return v & widthMask(st.bits()) & widthMask(n)
	}
	var hi uint64 = widthMask(n)
	if dt.signed() {
		hi = widthMask(n - 1)
	}
	if st.signed() {
		sv := signExtend(v, st.bits())
		if sv < 0 {
			if !dt.signed() {
				return 0
			}
			lo := -int64(hi) - 1
			return uint64(max(sv, lo)) & widthMask(n)
		}
		return min(uint64(sv), hi)
	}
	return min(v&widthMask(st.bits()), hi)
}
