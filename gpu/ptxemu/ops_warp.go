package ptxemu

import "math/bits"

// Warp-wide instructions: shfl, vote, match, redux, activemask. The .sync
// forms wait until every lane of their membermask executes them (see
// warp.gather); the old forms without .sync act on the lanes that are
// executing together.

func init() {
	decoders["shfl"] = decodeShfl
	decoders["vote"] = decodeVote
	decoders["match"] = decodeMatch
	decoders["redux"] = decodeRedux
	decoders["activemask"] = decodeActivemask
}

// Shuffle modes.
const (
	shflUp = iota
	shflDown
	shflBfly
	shflIdx
)

// warpArgs checks that s has n operands, or n+1 in the .sync form, whose
// last operand is the membermask.
func warpArgs(s *stmt, n int, sync bool) error {
	if sync {
		n++
	}
	return args(s, n)
}

// memberMask decodes into in.e the membermask, the last operand of a .sync
// form; a form without .sync has none.
func (d *decoder) memberMask(s *stmt, in *inst, sync bool) error {
	if !sync {
		return nil
	}
	var err error
	in.e, err = d.src(s, s.args[len(s.args)-1], typeNames["b32"])
	return err
}

// decodeShfl decodes shfl[.sync].mode.b32 d[|p], a, b, c[, membermask].
func decodeShfl(d *decoder, s *stmt, m *modset, in *inst) error {
	sync := m.take("sync")
	var ok bool
	if in.mode, ok = m.takeMode("up", "down", "bfly", "idx"); !ok { // shflUp...shflIdx
		return unsupported(s, "")
	}
	if !m.take("b32") {
		return unsupported(s, "")
	}
	if err := warpArgs(s, 4, sync); err != nil {
		return err
	}
	dst := s.args[0]
	var err error
	if dst.kind == argPair {
		if in.pd, err = d.predDst(s, dst.elems[1]); err != nil {
			return err
		}
		dst = dst.elems[0]
	}
	if in.d, err = d.dst(s, dst); err != nil {
		return err
	}
	b32 := typeNames["b32"]
	if err := d.srcs(s, in, b32, 1, 3); err != nil {
		return err
	}
	if err := d.memberMask(s, in, sync); err != nil {
		return err
	}
	in.fn, in.ctrl = opShfl, true
	return nil
}

// opShfl reads register a of another lane. A source lane outside the
// segment (c's clamp and segment mask) gives the lane its own value and a
// false predicate, as in PTX; a source lane that does not take part (not
// executing it, or not a thread of the block) is undefined in PTX and a
// fault here.
func opShfl(w *warp, in *inst, mask uint32) {
	if _, ok := w.gather(in, mask); !ok {
		return
	}
	src := *w.r(in.a)
	d, b, c := w.r(in.d), w.r(in.b), w.r(in.c)
	var pred uint32
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		bval, cval := int(b[l]&31), int(c[l])
		seg := cval >> 8 & 31
		maxLane := l&seg | cval&31&^seg
		minLane := l & seg
		var j int
		var ok bool
		switch in.mode {
		case shflUp:
			j = l - bval
			ok = j >= maxLane
		case shflDown:
			j = l + bval
			ok = j <= maxLane
		case shflBfly:
			j = l ^ bval
			ok = j <= maxLane
		default:
			j = minLane | bval&^seg
			ok = j <= maxLane
		}
		if !ok {
			j = l
		} else {
			pred |= 1 << l
		}
		if mask>>j&1 == 0 {
			what := "is not executing it"
			if w.exists>>j&1 == 0 {
				what = "is not a thread of the block"
			}
			w.faultAt(in, l, WarpSyncMisuse, "lane %d reads lane %d, which %s (the value would be undefined on a GPU)", l, j, what)
			return
		}
		d[l] = src[j]
	}
	if in.pd >= 0 {
		w.setPred(in.pd, pred, mask)
	}
	w.st.WarpSyncs++
	w.jump(w.pc + 1)
}

// Vote modes.
const (
	voteAll = iota
	voteAny
	voteUni
	voteBallot
)

// decodeVote decodes vote[.sync].{all,any,uni}.pred and .ballot.b32.
func decodeVote(d *decoder, s *stmt, m *modset, in *inst) error {
	sync := m.take("sync")
	var ok bool
	if in.mode, ok = m.takeMode("all", "any", "uni", "ballot"); !ok { // voteAll...voteBallot
		return unsupported(s, "")
	}
	want := "pred"
	if in.mode == voteBallot {
		want = "b32"
	}
	if !m.take(want) {
		return unsupported(s, "")
	}
	if err := warpArgs(s, 2, sync); err != nil {
		return err
	}
	if err := d.countOrPred(s, in, in.mode == voteBallot, 1); err != nil {
		return err
	}
	if err := d.memberMask(s, in, sync); err != nil {
		return err
	}
	in.fn, in.ctrl = opVote, true
	return nil
}

func opVote(w *warp, in *inst, mask uint32) {
	if _, ok := w.gather(in, mask); !ok {
		return
	}
	v := w.preds[in.pa]
	if in.paNeg {
		v = ^v
	}
	v &= mask
	switch in.mode {
	case voteAll:
		w.setPred(in.pd, boolMask(v == mask), mask)
	case voteAny:
		w.setPred(in.pd, boolMask(v != 0), mask)
	case voteUni:
		w.setPred(in.pd, boolMask(v == 0 || v == mask), mask)
	default:
		d := w.r(in.d)
		for l := range 32 {
			if mask>>l&1 != 0 {
				d[l] = uint64(v)
			}
		}
	}
	w.st.WarpSyncs++
	w.jump(w.pc + 1)
}

// decodeMatch decodes match.any.sync and match.all.sync (.b32, .b64).
func decodeMatch(d *decoder, s *stmt, m *modset, in *inst) error {
	all := m.take("all")
	if !all && !m.take("any") || !m.take("sync") {
		return unsupported(s, "")
	}
	t, ok := m.takeType()
	if !ok || t.kind != kindBits || t.size < 4 {
		return unsupported(s, "")
	}
	if err := args(s, 3); err != nil {
		return err
	}
	dst := s.args[0]
	var err error
	if dst.kind == argPair {
		if !all {
			return errorf(s, "match.any has no predicate result")
		}
		if in.pd, err = d.predDst(s, dst.elems[1]); err != nil {
			return err
		}
		dst = dst.elems[0]
	}
	if in.d, err = d.dst(s, dst); err != nil {
		return err
	}
	if in.a, err = d.src(s, s.args[1], t); err != nil {
		return err
	}
	if err := d.memberMask(s, in, true); err != nil {
		return err
	}
	in.t, in.mode = t, choose8(all)
	in.fn, in.ctrl = opMatch, true
	return nil
}

func opMatch(w *warp, in *inst, mask uint32) {
	if _, ok := w.gather(in, mask); !ok {
		return
	}
	a, d := *w.r(in.a), w.r(in.d)
	m := widthMask(in.t.bits())
	first := bits.TrailingZeros32(mask)
	allSame := true
	for l := range 32 {
		if mask>>l&1 != 0 && a[l]&m != a[first]&m {
			allSame = false
		}
	}
	for l := range 32 {
		if mask>>l&1 == 0 {
			continue
		}
		if in.mode == 1 {
			d[l] = uint64(mask) * uint64(choose8(allSame))
			continue
		}
		var same uint32
		for j := range 32 {
			if mask>>j&1 != 0 && a[j]&m == a[l]&m {
				same |= 1 << j
			}
		}
		d[l] = uint64(same)
	}
	if in.pd >= 0 {
		w.setPred(in.pd, boolMask(allSame), mask)
	}
	w.st.WarpSyncs++
	w.jump(w.pc + 1)
}

// decodeRedux decodes redux.sync.{add,min,max}.{u32,s32} and
// redux.sync.{and,or,xor}.b32.
func decodeRedux(d *decoder, s *stmt, m *modset, in *inst) error {
	if !m.take("sync") {
		return unsupported(s, "")
	}
	op := m.takeAny("add", "min", "max", "and", "or", "xor")
	t, ok := m.takeType()
	if op == "" || !ok || t.size != 4 || t.isFloat() {
		return unsupported(s, "")
	}
	in.mode = atomOps[op]
	if err := d.dstArgs(s, in, 3); err != nil {
		return err
	}
	var err error
	if in.a, err = d.src(s, s.args[1], t); err != nil {
		return err
	}
	if err := d.memberMask(s, in, true); err != nil {
		return err
	}
	in.t, in.fn, in.ctrl = t, opRedux, true
	return nil
}

func opRedux(w *warp, in *inst, mask uint32) {
	if _, ok := w.gather(in, mask); !ok {
		return
	}
	a, d := w.r(in.a), w.r(in.d)
	first := bits.TrailingZeros32(mask)
	acc := a[first] & 0xFFFFFFFF
	for l := first + 1; l < 32; l++ {
		if mask>>l&1 != 0 {
			acc = atomNew(in.mode, in.t, acc, a[l], 0)
		}
	}
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = acc
		}
	}
	w.st.WarpSyncs++
	w.jump(w.pc + 1)
}

func decodeActivemask(d *decoder, s *stmt, m *modset, in *inst) error {
	if !m.take("b32") {
		return unsupported(s, "")
	}
	if err := args(s, 1); err != nil {
		return err
	}
	var err error
	in.d, err = d.dst(s, s.args[0])
	in.fn = opActivemask
	return err
}

// opActivemask gives the lanes executing together, as __activemask().
func opActivemask(w *warp, in *inst, mask uint32) {
	d := w.r(in.d)
	for l := range 32 {
		if mask>>l&1 != 0 {
			d[l] = uint64(w.active)
		}
	}
}
