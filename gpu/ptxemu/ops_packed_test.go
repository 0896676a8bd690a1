package ptxemu

import (
	"errors"
	"testing"
)

// TestPacked16 checks add, min and max on .u16x2 and .s16x2 against values
// worked out by hand: each half wraps on its own, without a carry into the
// other; 0x8000 is the largest unsigned half and the smallest signed one;
// .relu turns a negative half into 0 and keeps the other half.
func TestPacked16(t *testing.T) {
	out := func(op string) string { return op + " %r4, %r1, %r2; cvt.u64.u32 %rd10, %r4;" }
	// 0x8000 against 0x0001 in both halves, once in each order.
	signs, signsB := cycle(0x80000001, 0x00018000), cycle(0x00018000, 0x80000001)
	runCases(t, []laneCase{
		{"add.u16x2 low half wraps, no carry", out("add.u16x2"), vals(0x0001FFFF), vals(0x00010001), nil, vals(0x00020000)},
		{"add.u16x2 high half wraps, no carry out", out("add.u16x2"), vals(0xFFFF0000), vals(0x00010000), nil, vals(0)},
		{"add.u16x2 both halves wrap", out("add.u16x2"), vals(0xFFFEFFFF), vals(0x00050003), nil, vals(0x00030002)},
		{"add.u16x2 immediate", "add.u16x2 %r4, %r1, 0x00020003; cvt.u64.u32 %rd10, %r4;", vals(0x0010FFFF), nil, nil, vals(0x00120002)},
		{"add.s16x2 overflows within halves", out("add.s16x2"), vals(0x7FFF8000), vals(0x00018000), nil, vals(0x80000000)},
		{"add.s16x2 negative halves", out("add.s16x2"), vals(0xFFFF0005), vals(0xFFFEFFF9), nil, vals(0xFFFDFFFE)},
		{"min.u16x2 unsigned", out("min.u16x2"), signs, signsB, nil, vals(0x00010001)},
		{"max.u16x2 unsigned", out("max.u16x2"), signs, signsB, nil, vals(0x80008000)},
		{"min.s16x2 signed", out("min.s16x2"), signs, signsB, nil, vals(0x80008000)},
		{"max.s16x2 signed", out("max.s16x2"), signs, signsB, nil, vals(0x00010001)},
		{"min.u16x2 halves independent", out("min.u16x2"), vals(0x00050009), vals(0x00070002), nil, vals(0x00050002)},
		{"max.s16x2 halves independent", out("max.s16x2"), vals(0xFFFF0004), vals(0xFFFE0003), nil, vals(0xFFFF0004)},
		{"min.relu.s16x2", out("min.relu.s16x2"), cycle(0xFFFE0005, 0x00040003, 0x8000FFFF), cycle(0x00030007, 0x00060002, 0x7FFF0001), nil,
			cycle(0x00000005, 0x00040002, 0x00000000)},
		{"max.relu.s16x2", out("max.relu.s16x2"), cycle(0xFFFE8000, 0x00040003, 0x80007FFF), cycle(0xFFFF0003, 0xFFF00002, 0x8001FFFF), nil,
			cycle(0x00000003, 0x00040003, 0x00007FFF)},
		{"min.s16x2.relu (modifier order)", out("min.s16x2.relu"), vals(0x0002FFF0), vals(0x00030001), nil, vals(0x00020000)},
	})
}

// TestPacked16Unsupported checks that the forms PTX does not define, or
// that the interpreter does not model, fail the load.
func TestPacked16Unsupported(t *testing.T) {
	for _, inst := range []string{
		"sub.u16x2 %r1, %r2, %r3",
		"min.relu.u16x2 %r1, %r2, %r3",
		"add.sat.s16x2 %r1, %r2, %r3",
		"add.cc.u16x2 %r1, %r2, %r3",
		"add.u16x2.u32 %r1, %r2, %r3",
		"mul.lo.u16x2 %r1, %r2, %r3",
	} {
		src := ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\t" + inst + ";\n\tret;\n}\n"
		_, err := New(Options{}).Load("bad", src)
		var ue *UnsupportedError
		if !errors.As(err, &ue) || ue.Instruction != inst {
			t.Errorf("%s: Load = %v, want an *UnsupportedError for it", inst, err)
		}
	}
}

// packedRelax is the Floyd-Warshall update of two 16-bit distances packed
// in a word, in a module for sm_90 as nvcc writes it with the version
// raised to 8.0: thread i < n computes out[i] = min(c[i], a[i] + b[i]) per
// half, the arrays a, b, c and out lying one after the other in buf.
const packedRelax = `.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 k_buf, .param .u32 k_n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<10>;
	ld.param.u64 %rd1, [k_buf];
	ld.param.u32 %r1, [k_n];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra $L__done;
	mul.wide.u32 %rd2, %r5, 4;
	add.s64 %rd3, %rd1, %rd2;
	mul.wide.u32 %rd4, %r1, 4;
	add.s64 %rd5, %rd3, %rd4;
	add.s64 %rd6, %rd5, %rd4;
	add.s64 %rd7, %rd6, %rd4;
	ld.global.u32 %r6, [%rd3];
	ld.global.u32 %r7, [%rd5];
	ld.global.u32 %r8, [%rd6];
	add.u16x2 %r9, %r6, %r7;
	min.u16x2 %r10, %r8, %r9;
	st.global.u32 [%rd7], %r10;
$L__done:
	ret;
}
`

func TestPacked16Kernel(t *testing.T) {
	const n = 40 // two blocks of 32, the last 24 threads idle
	a := []uint32{0x0001FFFF, 0xFFFF0001, 0x80008000, 0x00000000, 0x7FFF7FFF, 0x12345678}
	b := []uint32{0x00010001, 0x00020003, 0x80008000, 0xFFFFFFFF, 0x00010001, 0x11111111}
	c := []uint32{0xFFFFFFFF, 0x00050000, 0x00010001, 0x7FFF8000, 0x80017FFF, 0x20006000}
	init := make([]uint32, 4*n)
	for i := range n {
		k := i % len(a)
		init[i], init[n+i], init[2*n+i] = a[k]^uint32(i), b[k], c[k]
		init[3*n+i] = 0xDEADBEEF
	}
	got, _, err := runKernel(t, Options{Workers: 2}, packedRelax, Dim3{2, 1, 1}, Dim3{32, 1, 1}, 0, 4*n, init, n)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		x, y, z := init[i], init[n+i], init[2*n+i]
		var want uint32
		for _, shift := range []uint{0, 16} {
			sum := (x>>shift&0xFFFF + y>>shift&0xFFFF) % 0x10000
			want |= min(z>>shift&0xFFFF, sum) << shift
		}
		if got[3*n+i] != want {
			t.Errorf("out[%d] = %#08x, want %#08x (a %#08x, b %#08x, c %#08x)", i, got[3*n+i], want, x, y, z)
		}
	}
	// The first outputs, worked out by hand, check the reference too:
	// halves that wrap, and 0xFFFF above 0x7FFF unsigned (out[3]).
	for i, want := range []uint32{0x00020000, 0x00010000, 0x00000001, 0x7FFF0002} {
		if got[3*n+i] != want {
			t.Errorf("out[%d] = %#08x, want %#08x by hand", i, got[3*n+i], want)
		}
	}
}
