package ptxemu

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/ptx"
)

// TestEveryEmbeddedModuleDecodes loads every PTX module of package ptx:
// every entry point must decode.
func TestEveryEmbeddedModuleDecodes(t *testing.T) {
	d := New(Options{})
	for _, name := range ptx.Names() {
		text, err := ptx.PTX(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := d.Load(name, text)
		if err != nil {
			t.Errorf("module %s: %v", name, err)
			continue
		}
		if got, want := len(m.Kernels()), strings.Count(text, ".entry "); got != want || got == 0 {
			t.Errorf("module %s: %d kernels, the text has %d entries", name, got, want)
		}
		for _, kn := range m.Kernels() {
			if k, _ := m.Kernel(kn); k.Instructions() < 2 || len(k.Params()) == 0 {
				t.Errorf("kernel %s: %d instructions, %d parameters", kn, k.Instructions(), len(k.Params()))
			}
		}
	}
	// fw_hn(int n, int k, int *d, int *pred): pointers 8-byte aligned.
	text, _ := ptx.PTX(ptx.FloydWarshall)
	m, err := d.Load("fw", text)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := m.Kernel("fw_hn")
	want := []Param{{"fw_hn_param_0", "u32", 4, 0}, {"fw_hn_param_1", "u32", 4, 4}, {"fw_hn_param_2", "u64", 8, 8}, {"fw_hn_param_3", "u64", 8, 16}}
	if got := k.Params(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fw_hn parameters %v, want %v", got, want)
	}
}

func TestUnsupportedInstructions(t *testing.T) {
	src := ptxHeader + `
.visible .entry k(.param .u64 k_buf)
{
	.reg .b32 %r<4>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<4>;
	div.rz.f32 %f1, %f2, %f3;
	frobnicate.u32 %r1, %r2;
	bar.sync 0, 64;
	ld.global.L2.u32 %r1, [%rd1];
	add.cc.u32 %r1, %r2, %r3;
	ret;
}`
	_, err := New(Options{}).Load("bad", src)
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("Load = %v, want a *LoadError", err)
	}
	wants := []struct {
		inst, why string
	}{
		{"div.rz.f32 %f1, %f2, %f3", "directed rounding .rz of div"},
		{"frobnicate.u32 %r1, %r2", ""},
		{"bar.sync 0, 64", "thread count"},
		{"ld.global.L2.u32 %r1, [%rd1]", "modifier .L2"},
		{"add.cc.u32 %r1, %r2, %r3", "carry"},
	}
	if len(le.Errs) != len(wants) {
		t.Fatalf("%d errors, want %d:\n%v", len(le.Errs), len(wants), err)
	}
	for i, w := range wants {
		var ue *UnsupportedError
		if !errors.As(le.Errs[i], &ue) {
			t.Errorf("error %d: %v, want an *UnsupportedError", i, le.Errs[i])
			continue
		}
		if ue.Instruction != w.inst || ue.Line != lineOf(src, w.inst) || !strings.Contains(ue.Why, w.why) || ue.Module != "bad" {
			t.Errorf("error %d: %+v, want %q at line %d (%s)", i, ue, w.inst, lineOf(src, w.inst), w.why)
		}
		if !strings.Contains(ue.Error(), "unsupported PTX instruction "+w.inst+" at line ") {
			t.Errorf("message %q", ue.Error())
		}
	}
	// A call of any function but printf's vprintf fails too.
	call := ptxHeader + `
.extern .func (.param .b32 func_retval0) __assertfail(.param .b64 p0, .param .b64 p1);
.visible .entry k()
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b64 param1;
	st.param.b64 [param1+0], %rd1;
	.param .b32 retval0;
	call.uni (retval0), __assertfail, (param0, param1);
	}
	ret;
}`
	_, err = New(Options{}).Load("assert", call)
	if err == nil || !strings.Contains(err.Error(), "unsupported PTX instruction") || !strings.Contains(err.Error(), "call.uni") ||
		!strings.Contains(err.Error(), "only printf's vprintf") {
		t.Errorf("a call: %v", err)
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, c := range []struct {
		src, want string
	}{
		{".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 1\n}", `line 8: syntax error: mov.u32: expected , or ; after an operand, found "}"`},
		{".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tbra NOWHERE;\n}", "undefined label NOWHERE"},
		{".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tadd.s32 %r1, %r5, 1;\n}", "undeclared register %r5"},
		{".visible .entry k()\n{\n\tret;\n", "missing }"},
		{".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, #;\n}", "unexpected character"},
	} {
		_, err := New(Options{}).Load("s", ptxHeader+c.src)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want a syntax error saying %q", c.src, err, c.want)
		}
	}
}

func TestLaunchChecks(t *testing.T) {
	src := ptxHeader + `
.visible .entry k(.param .u64 k_buf, .param .u32 k_n)
{
	ret;
}
.visible .entry fixed(.param .u64 k_buf) .reqntid 64, 1, 1
{
	ret;
}`
	d := New(Options{})
	m, err := d.Load("t", src)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := m.Kernel("k")
	fixed, _ := m.Kernel("fixed")
	ctx := context.Background()
	for _, c := range []struct {
		k           *Kernel
		grid, block Dim3
		shared      int
		args        []uint64
		want        string
	}{
		{k, Dim3{1, 1, 1}, Dim3{2048, 1, 1}, 0, []uint64{0, 0}, "block (2048,1,1) is outside"},
		{k, Dim3{1, 1, 1}, Dim3{64, 32, 1}, 0, []uint64{0, 0}, "has 2048 threads"},
		{k, Dim3{0, 1, 1}, Dim3{1, 1, 1}, 0, []uint64{0, 0}, "grid (0,1,1) is outside"},
		{k, Dim3{1, 70000, 1}, Dim3{1, 1, 1}, 0, []uint64{0, 0}, "grid (1,70000,1)"},
		{k, Dim3{1, 1, 1}, Dim3{1, 1, 1}, 64 << 10, []uint64{0, 0}, "65536 of dynamic shared memory"},
		{k, Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, []uint64{0}, "1 arguments for 2 parameters"},
		{fixed, Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0, []uint64{0}, ".reqntid"},
	} {
		_, err := d.Launch(ctx, c.k, c.grid, c.block, c.shared, c.args)
		var le *LaunchError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("launch %v %v: %v, want a launch error saying %q", c.grid, c.block, err, c.want)
		}
	}
	if _, err := d.Launch(ctx, fixed, Dim3{2, 1, 1}, Dim3{64, 1, 1}, 0, []uint64{0}); err != nil {
		t.Errorf("a good launch: %v", err)
	}
	if _, err := m.Kernel("nope"); err == nil || !strings.Contains(err.Error(), "kernels: fixed, k") {
		t.Errorf("Kernel(nope) = %v", err)
	}
	other := New(Options{})
	if _, err := other.Launch(ctx, k, Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, []uint64{0, 0}); err == nil {
		t.Error("a kernel of another device launched")
	}
	if n, err := d.MaxActiveBlocks(k, 1024, 8192); n != 2 || err != nil {
		t.Errorf("MaxActiveBlocks(1024 threads, 8 KiB) = %d, %v; want 2", n, err)
	}
	if n, err := d.MaxActiveBlocks(k, 256, 48<<10); n != 1 || err != nil {
		t.Errorf("MaxActiveBlocks(256 threads, 48 KiB) = %d, %v; want 1", n, err)
	}
}

func TestStatistics(t *testing.T) {
	out, st, err := runKernel(t, Options{}, oneStore, Dim3{2, 1, 1}, Dim3{40, 1, 1}, 0, 40, nil, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		if v != uint32(i) {
			t.Fatalf("out[%d] = %d", i, v)
		}
	}
	// 11 instructions per warp, 2 warps per block.
	want := Stats{Launches: 1, Blocks: 2, Warps: 4, Threads: 80, Instructions: 4 * 11, ThreadInstructions: 80 * 11}
	want.Loaded[spaceParam] = 80 * (8 + 4 + 4)
	want.Stored[spaceGlobal] = 80 * 4
	st.Wall = 0
	if st != want {
		t.Errorf("stats\n%+v, want\n%+v", st, want)
	}
	if s := st.String(); !strings.Contains(s, "44 warp instructions (880 thread instructions)") || !strings.Contains(s, "global 0 B loaded / 320 B stored") {
		t.Errorf("String() = %q", s)
	}
}

func TestMemoryManagement(t *testing.T) {
	d := New(Options{MemoryBytes: 1 << 20})
	a := mustAlloc(t, d, 1000)
	b := mustAlloc(t, d, 10)
	if a%allocAlign != 0 || b%allocAlign != 0 || b < a+1000 {
		t.Errorf("allocations at %#x and %#x", a, b)
	}
	free, total := d.MemInfo()
	if total != 1<<20 || free != total-1024-256 {
		t.Errorf("MemInfo = %d, %d", free, total)
	}
	if _, err := d.Alloc(1 << 20); err == nil || !strings.Contains(err.Error(), "out of device memory") {
		t.Errorf("allocating too much: %v", err)
	}
	if err := d.Free(a); err != nil {
		t.Fatal(err)
	}
	if err := d.Free(a); err == nil {
		t.Error("freeing twice did not fail")
	}
	c := mustAlloc(t, d, 512)
	if c != a {
		t.Errorf("the freed space was not reused: %#x, want %#x", c, a)
	}
	if err := d.Write(b, make([]byte, 11)); err == nil || !strings.Contains(err.Error(), "runs 1 bytes past the end") {
		t.Errorf("writing past an allocation: %v", err)
	}
	if err := d.Memset32(b+2, 1, 1); err == nil {
		t.Error("a misaligned memset did not fail")
	}
	if err := d.WriteInt32(c, []int32{-1, 7}); err != nil {
		t.Fatal(err)
	}
	got := make([]int32, 2)
	if err := d.ReadInt32(c, got); err != nil || got[0] != -1 || got[1] != 7 {
		t.Errorf("read back %v, %v", got, err)
	}
}

// TestPrintfCall runs nvcc's printf call sequence: a format string and
// an argument buffer, per lane in order, and a null format string that
// faults as an illegal address instead of crashing.
func TestPrintfCall(t *testing.T) {
	src := ptxHeader + `
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 $str[9] = {108, 97, 110, 101, 32, 37, 100, 10, 0};
.visible .entry k(.param .u64 k_fmt)
{
	.local .align 8 .b8 __local_depot0[8];
	.reg .b32 %r<3>;
	.reg .b64 %rd<6>;
	mov.u64 %rd1, __local_depot0;
	cvta.local.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	st.local.u32 [%rd1], %r1;
	ld.param.u64 %rd5, [k_fmt];
	mov.u64 %rd3, $str;
	cvta.global.u64 %rd4, %rd3;
	add.u64 %rd4, %rd4, %rd5;
	{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd4;
	.param .b64 param1;
	st.param.b64 [param1+0], %rd2;
	.param .b32 retval0;
	call.uni (retval0), vprintf, (param0, param1);
	ld.param.b32 %r2, [retval0+0];
	}
	ret;
}`
	dev := New(Options{Workers: 2})
	var out strings.Builder
	dev.SetPrintfOutput(&out)
	m, err := dev.Load("printf", src)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := m.Kernel("k")
	if _, err := dev.Launch(context.Background(), k, Dim3{1, 1, 1}, Dim3{3, 1, 1}, 0, []uint64{0}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "lane 0\nlane 1\nlane 2\n" {
		t.Errorf("printf output %q", out.String())
	}
	addr, _, _ := m.Global("$str")
	_, err = dev.Launch(context.Background(), k, Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0, []uint64{-addr})
	var f *Fault
	if !errors.As(err, &f) || f.Kind != IllegalAddress {
		t.Errorf("null format string: %v, want an illegal address", err)
	}
}
