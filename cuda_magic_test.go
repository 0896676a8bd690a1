package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/kernel/session"
)

// cellOutput records what a cell sends to the front end.
type cellOutput struct {
	mu     sync.Mutex
	stdout strings.Builder
}

func (o *cellOutput) Stream(name, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if name == "stdout" {
		o.stdout.WriteString(text)
	}
}
func (o *cellOutput) Display(session.Bundle, string, bool) {}
func (o *cellOutput) ClearOutput(bool)                     {}
func (o *cellOutput) Input(string, bool) (string, error)   { return "", errors.New("no input") }

func (o *cellOutput) text() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.stdout.String()
}

// cellSession starts a session on the emulator with the PTX cache in a
// fresh directory.
func cellSession(t *testing.T) (*session.Session, string) {
	t.Helper()
	t.Setenv(gpu.EnvDriver, "emu")
	cache := t.TempDir()
	t.Setenv(gpu.EnvPTXCache, cache)
	s, err := newSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, cache
}

// run executes a cell, returning its text result and what it printed.
func run(t *testing.T, s *session.Session, code string) (result, printed string, err error) {
	t.Helper()
	out := &cellOutput{}
	b, err := s.Execute(context.Background(), code, out)
	if b != nil {
		result = fmt.Sprint(b.Data["text/plain"])
	}
	return result, out.text(), err
}

// launchCell is a Go cell that runs vecAdd and prints the sums.
const launchCell = `d, _ := gpu.Default()
a, _ := d.Float32s([]float32{1, 2, 3})
b, _ := d.Float32s([]float32{10, 20, 30})
c, _ := d.NewBuffer(gpu.Float32, 3)
err := gpu.Launch("vecAdd", gpu.Dim(1), gpu.Dim(32), a, b, c, 3)
sum, _ := c.ToFloat32s()
fmt.Println(sum, err)`

// TestPTXCell loads PTX from a %%ptx cell and launches it from a Go cell;
// %gpu then lists the module.
func TestPTXCell(t *testing.T) {
	s, _ := cellSession(t)
	res, _, err := run(t, s, "%%ptx --name celltest\n"+cellTestPTX)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"module celltest on PTX emulator", "vecAdd(.u64 param_0, .u64 param_1, .u64 param_2, .u32 param_3)",
		"variables devData, coef, offset", "PTX cell, PTX 5"} {
		if !strings.Contains(res, want) {
			t.Errorf("%%%%ptx printed %q, want %q in it", res, want)
		}
	}
	_, printed, err := run(t, s, launchCell)
	if err != nil || printed != "[11 22 33] <nil>\n" {
		t.Errorf("launching from a Go cell printed %q, %v", printed, err)
	}
	_, printed, err = run(t, s, `err = gpu.Launch("vecAdd", gpu.Dim(1), gpu.Dim(2048), a, b, c, 3)
fmt.Printf("Error %d : %s\n", gpu.ErrorCode(err), gpu.ErrorString(err))`)
	if err != nil || printed != "Error 9 : invalid configuration argument\n" {
		t.Errorf("config error cell: %q, %v", printed, err)
	}
	res, _, err = run(t, s, "%gpu")
	if err != nil || !strings.Contains(res, "cell modules:\n  module celltest") || !strings.Contains(res, "cuda compilers: ") {
		t.Errorf("%%gpu: %q, %v", res, err)
	}
	_, _, err = run(t, s, "%%ptx --arch compute_80\n"+cellTestPTX)
	if err == nil || !strings.Contains(err.Error(), `unknown argument "--arch"`) {
		t.Errorf("%%%%ptx --arch: %v", err)
	}
}

// TestPTXCellPrintf runs the course's __device__ variable example, whose
// kernel prints with printf: on the emulator, the output reaches the Go
// cell that launched the kernel.
func TestPTXCellPrintf(t *testing.T) {
	s, _ := cellSession(t)
	if _, _, err := run(t, s, "%%ptx\n"+printfTestPTX); err != nil {
		t.Fatal(err)
	}
	_, printed, err := run(t, s, `v, _ := gpu.GetVar("devData")
v.CopyFloat32s([]float32{3.14})
gpu.Launch("checkGlobal", gpu.Dim(1), gpu.Dim(1))
got, _ := v.ToFloat32s()
fmt.Printf("Host: the value changed by the kernel to %.2f\n", got[0])`)
	want := "Device: the value of the global variable is 3.140000\nHost: the value changed by the kernel to 5.14\n"
	if err != nil || printed != want {
		t.Errorf("printed %q, %v; want %q", printed, err, want)
	}
}

// TestCUDACellCompileError checks that nvcc's errors name the cell's lines.
func TestCUDACellCompileError(t *testing.T) {
	if _, err := exec.LookPath("nvcc"); err != nil {
		t.Skip("nvcc is not on PATH (CI has no CUDA toolkit); the cached path is tested by TestCUDACellCache")
	}
	s, _ := cellSession(t)
	_, _, err := run(t, s, "%%cuda\n__global__ void k(int *p) {\n  p[0] = x;\n}")
	if err == nil || !strings.Contains(err.Error(), `cell:3: error: identifier "x" is undefined`) {
		t.Errorf("syntax error: %v, want it on cell line 3", err)
	}
	res, _, err := run(t, s, "%%cuda\n__device__ int hits;\n"+vecAddCUDA)
	if err != nil || !strings.Contains(res, "module vecAdd on PTX emulator") || !strings.Contains(res, "compiled by nvcc") {
		t.Fatalf("%%%%cuda: %q, %v", res, err)
	}
	_, printed, err := run(t, s, launchCell+"\nh, err := gpu.GetVar(\"hits\")\nfmt.Println(h.Type(), err)")
	if err != nil || printed != "[11 22 33] <nil>\nint32 <nil>\n" {
		t.Errorf("launch: %q, %v", printed, err)
	}
}

// vecAddCUDA is the kernel of the cache test.
const vecAddCUDA = `__global__ void vecAdd(const float *a, const float *b, float *c, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) c[i] = a[i] + b[i];
}`

// TestCUDACellCache runs a %%cuda cell with no compiler on PATH: from the
// PTX cache when it holds the cell's PTX (seeded here with committed PTX,
// so that the test needs no nvcc), and with an error that says what to do
// when it does not.
func TestCUDACellCache(t *testing.T) {
	s, cache := cellSession(t)
	t.Setenv("PATH", "")
	_, _, err := run(t, s, "%%cuda\n"+vecAddCUDA)
	for _, want := range []string{"no CUDA compiler", "nvcc: not found on PATH", "no cached PTX", cache, "Install the CUDA toolkit", "%%ptx"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("no compiler, empty cache: %v, want %q in it", err, want)
		}
	}
	file, err := gpu.PTXCacheFile(cudaCellSource("\n"+vecAddCUDA), gpu.CompileOptions{}) // the session blanks the magic's line
	if err != nil || filepath.Dir(file) != cache {
		t.Fatalf("PTXCacheFile: %q, %v", file, err)
	}
	if err := os.WriteFile(file, []byte(cellTestPTX), 0o644); err != nil {
		t.Fatal(err)
	}
	res, _, err := run(t, s, "%%cuda --name vec\n"+vecAddCUDA)
	if err != nil || !strings.Contains(res, "module vec on PTX emulator") || !strings.Contains(res, "PTX from the cache") || !strings.Contains(res, "(cached PTX from "+cache+")") {
		t.Fatalf("%%%%cuda from the cache: %q, %v", res, err)
	}
	_, printed, err := run(t, s, launchCell)
	if err != nil || printed != "[11 22 33] <nil>\n" {
		t.Errorf("launch: %q, %v", printed, err)
	}
}

// cellTestPTX is gpu's test PTX (see gpu/cell_test.go for its source).
const cellTestPTX = `//
// Generated by NVIDIA NVVM Compiler
//
// Compiler Build ID: CL-31833905
// Cuda compilation tools, release 11.8, V11.8.89
// Based on NVVM 7.0.1
//

.version 7.8
.target sm_52
.address_size 64

	// .globl	params
.global .align 4 .f32 devData;
.const .align 4 .b8 coef[16];
.const .align 4 .u32 offset;
.extern .shared .align 16 .b8 s[];

.visible .entry params(
	.param .u64 params_param_0,
	.param .u32 params_param_1,
	.param .u32 params_param_2,
	.param .u64 params_param_3,
	.param .u64 params_param_4,
	.param .f32 params_param_5,
	.param .f64 params_param_6,
	.param .u64 params_param_7
)
{
	.reg .f32 	%f<2>;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<11>;


	ld.param.u64 	%rd1, [params_param_0];
	ld.param.u32 	%r1, [params_param_1];
	ld.param.u32 	%r2, [params_param_2];
	ld.param.u64 	%rd2, [params_param_3];
	ld.param.u64 	%rd3, [params_param_4];
	ld.param.f32 	%f1, [params_param_5];
	ld.param.u64 	%rd4, [params_param_7];
	cvta.to.global.u64 	%rd5, %rd1;
	ld.param.u64 	%rd6, [params_param_6];
	st.global.u32 	[%rd5], %r1;
	st.global.u32 	[%rd5+4], %r2;
	st.global.u32 	[%rd5+8], %rd2;
	shr.u64 	%rd7, %rd2, 32;
	st.global.u32 	[%rd5+12], %rd7;
	st.global.u32 	[%rd5+16], %rd3;
	shr.u64 	%rd8, %rd3, 32;
	st.global.u32 	[%rd5+20], %rd8;
	st.global.f32 	[%rd5+24], %f1;
	st.global.u32 	[%rd5+28], %rd6;
	shr.u64 	%rd9, %rd6, 32;
	st.global.u32 	[%rd5+32], %rd9;
	st.global.u32 	[%rd5+36], %rd4;
	shr.u64 	%rd10, %rd4, 32;
	st.global.u32 	[%rd5+40], %rd10;
	ret;

}
	// .globl	_Z6vecAddPKfS0_Pfi
.visible .entry _Z6vecAddPKfS0_Pfi(
	.param .u64 _Z6vecAddPKfS0_Pfi_param_0,
	.param .u64 _Z6vecAddPKfS0_Pfi_param_1,
	.param .u64 _Z6vecAddPKfS0_Pfi_param_2,
	.param .u32 _Z6vecAddPKfS0_Pfi_param_3
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<4>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<11>;


	ld.param.u64 	%rd1, [_Z6vecAddPKfS0_Pfi_param_0];
	ld.param.u64 	%rd2, [_Z6vecAddPKfS0_Pfi_param_1];
	ld.param.u64 	%rd3, [_Z6vecAddPKfS0_Pfi_param_2];
	ld.param.u32 	%r2, [_Z6vecAddPKfS0_Pfi_param_3];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB1_2;

	cvta.to.global.u64 	%rd4, %rd1;
	mul.wide.s32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd4, %rd5;
	cvta.to.global.u64 	%rd7, %rd2;
	add.s64 	%rd8, %rd7, %rd5;
	ld.global.f32 	%f1, [%rd8];
	ld.global.f32 	%f2, [%rd6];
	add.f32 	%f3, %f2, %f1;
	cvta.to.global.u64 	%rd9, %rd3;
	add.s64 	%rd10, %rd9, %rd5;
	st.global.f32 	[%rd10], %f3;

$L__BB1_2:
	ret;

}
	// .globl	scale
.visible .entry scale(
	.param .u64 scale_param_0,
	.param .u32 scale_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<5>;
	.reg .b32 	%r<12>;
	.reg .b64 	%rd<8>;


	ld.param.u64 	%rd1, [scale_param_0];
	ld.param.u32 	%r2, [scale_param_1];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB2_2;

	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	shr.s32 	%r6, %r1, 31;
	shr.u32 	%r7, %r6, 30;
	add.s32 	%r8, %r1, %r7;
	and.b32  	%r9, %r8, -4;
	sub.s32 	%r10, %r1, %r9;
	mul.wide.s32 	%rd5, %r10, 4;
	mov.u64 	%rd6, coef;
	add.s64 	%rd7, %rd6, %rd5;
	ld.const.f32 	%f1, [%rd7];
	ld.global.f32 	%f2, [%rd4];
	ld.const.u32 	%r11, [offset];
	cvt.rn.f32.s32 	%f3, %r11;
	fma.rn.f32 	%f4, %f2, %f1, %f3;
	st.global.f32 	[%rd4], %f4;

$L__BB2_2:
	ret;

}
	// .globl	addDev
.visible .entry addDev()
{
	.reg .f32 	%f<3>;


	ld.global.f32 	%f1, [devData];
	add.f32 	%f2, %f1, 0f40000000;
	st.global.f32 	[devData], %f2;
	ret;

}
	// .globl	oob
.visible .entry oob(
	.param .u64 oob_param_0,
	.param .u32 oob_param_1
)
{
	.reg .b32 	%r<5>;
	.reg .b64 	%rd<5>;


	ld.param.u64 	%rd1, [oob_param_0];
	ld.param.u32 	%r1, [oob_param_1];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r2, %tid.x;
	add.s32 	%r3, %r2, %r1;
	mul.wide.u32 	%rd3, %r3, 4;
	add.s64 	%rd4, %rd2, %rd3;
	mov.u32 	%r4, 1;
	st.global.u32 	[%rd4], %r4;
	ret;

}
	// .globl	blockSum
.visible .entry blockSum(
	.param .u64 blockSum_param_0,
	.param .u64 blockSum_param_1,
	.param .u32 blockSum_param_2
)
{
	.reg .pred 	%p<6>;
	.reg .b32 	%r<24>;
	.reg .b64 	%rd<7>;


	ld.param.u64 	%rd1, [blockSum_param_0];
	ld.param.u64 	%rd2, [blockSum_param_1];
	ld.param.u32 	%r11, [blockSum_param_2];
	mov.u32 	%r1, %ntid.x;
	mov.u32 	%r12, %ctaid.x;
	mov.u32 	%r2, %tid.x;
	mad.lo.s32 	%r3, %r12, %r1, %r2;
	setp.ge.s32 	%p1, %r3, %r11;
	mov.u32 	%r22, 0;
	@%p1 bra 	$L__BB5_2;

	cvta.to.global.u64 	%rd3, %rd1;
	mul.wide.s32 	%rd4, %r3, 4;
	add.s64 	%rd5, %rd3, %rd4;
	ld.global.u32 	%r22, [%rd5];

$L__BB5_2:
	shl.b32 	%r13, %r2, 2;
	mov.u32 	%r14, s;
	add.s32 	%r6, %r14, %r13;
	st.shared.u32 	[%r6], %r22;
	bar.sync 	0;
	shr.u32 	%r23, %r1, 1;
	setp.eq.s32 	%p2, %r23, 0;
	@%p2 bra 	$L__BB5_7;

$L__BB5_4:
	setp.ge.s32 	%p3, %r2, %r23;
	@%p3 bra 	$L__BB5_6;

	shl.b32 	%r15, %r23, 2;
	add.s32 	%r16, %r6, %r15;
	ld.shared.u32 	%r17, [%r6];
	ld.shared.u32 	%r18, [%r16];
	add.s32 	%r19, %r17, %r18;
	st.shared.u32 	[%r6], %r19;

$L__BB5_6:
	bar.sync 	0;
	shr.s32 	%r9, %r23, 1;
	setp.gt.s32 	%p4, %r23, 1;
	mov.u32 	%r23, %r9;
	@%p4 bra 	$L__BB5_4;

$L__BB5_7:
	setp.ne.s32 	%p5, %r2, 0;
	@%p5 bra 	$L__BB5_9;

	ld.shared.u32 	%r20, [s];
	cvta.to.global.u64 	%rd6, %rd2;
	atom.global.add.u32 	%r21, [%rd6], %r20;

$L__BB5_9:
	ret;

}
	// .globl	dscale
.visible .entry dscale(
	.param .u64 dscale_param_0,
	.param .f64 dscale_param_1,
	.param .u64 dscale_param_2,
	.param .u32 dscale_param_3
)
{
	.reg .b32 	%r<5>;
	.reg .f64 	%fd<4>;
	.reg .b64 	%rd<9>;


	ld.param.u64 	%rd1, [dscale_param_0];
	ld.param.f64 	%fd1, [dscale_param_1];
	ld.param.u64 	%rd2, [dscale_param_2];
	ld.param.u32 	%r1, [dscale_param_3];
	cvta.to.global.u64 	%rd3, %rd2;
	cvta.to.global.u64 	%rd4, %rd1;
	mov.u32 	%r2, %tid.x;
	mul.wide.u32 	%rd5, %r2, 8;
	add.s64 	%rd6, %rd4, %rd5;
	ld.global.f64 	%fd2, [%rd6];
	mul.f64 	%fd3, %fd2, %fd1;
	st.global.f64 	[%rd6], %fd3;
	mul.wide.u32 	%rd7, %r2, 4;
	add.s64 	%rd8, %rd3, %rd7;
	ld.global.u32 	%r3, [%rd8];
	add.s32 	%r4, %r3, %r1;
	st.global.u32 	[%rd8], %r4;
	ret;

}

`

// printfTestPTX is gpu's printf test PTX (see gpu/cell_test.go).
const printfTestPTX = `//
// Generated by NVIDIA NVVM Compiler
//
// Compiler Build ID: CL-31833905
// Cuda compilation tools, release 11.8, V11.8.89
// Based on NVVM 7.0.1
//

.version 7.8
.target sm_52
.address_size 64

	// .globl	checkGlobal
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.global .align 4 .f32 devData;
.global .align 1 .b8 $str[48] = {68, 101, 118, 105, 99, 101, 58, 32, 116, 104, 101, 32, 118, 97, 108, 117, 101, 32, 111, 102, 32, 116, 104, 101, 32, 103, 108, 111, 98, 97, 108, 32, 118, 97, 114, 105, 97, 98, 108, 101, 32, 105, 115, 32, 37, 102, 10, 0};
.global .align 1 .b8 $str$1[78] = {116, 37, 100, 124, 37, 53, 100, 124, 37, 45, 52, 105, 124, 37, 117, 124, 37, 120, 124, 37, 88, 124, 37, 111, 124, 37, 108, 108, 100, 124, 37, 108, 108, 117, 124, 37, 99, 124, 37, 115, 124, 37, 56, 46, 51, 102, 124, 37, 101, 124, 37, 103, 124, 37, 71, 124, 37, 37, 124, 37, 48, 53, 100, 124, 37, 43, 100, 124, 37, 46, 50, 115, 124, 37, 108, 100, 10, 0};
.global .align 1 .b8 $str$2[4] = {115, 116, 114, 0};
.global .align 1 .b8 $str$3[7] = {97, 98, 99, 100, 101, 102, 0};

.visible .entry checkGlobal()
{
	.local .align 8 .b8 	__local_depot0[8];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .f32 	%f<4>;
	.reg .b32 	%r<2>;
	.reg .f64 	%fd<2>;
	.reg .b64 	%rd<5>;


	mov.u64 	%SPL, __local_depot0;
	cvta.local.u64 	%SP, %SPL;
	add.u64 	%rd1, %SP, 0;
	add.u64 	%rd2, %SPL, 0;
	ld.global.f32 	%f1, [devData];
	cvt.f64.f32 	%fd1, %f1;
	st.local.f64 	[%rd2], %fd1;
	mov.u64 	%rd3, $str;
	cvta.global.u64 	%rd4, %rd3;
	{ // callseq 0, 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd4;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd1;
	.param .b32 retval0;
	call.uni (retval0), 
	vprintf, 
	(
	param0, 
	param1
	);
	ld.param.b32 	%r1, [retval0+0];
	} // callseq 0
	ld.global.f32 	%f2, [devData];
	add.f32 	%f3, %f2, 0f40000000;
	st.global.f32 	[devData], %f3;
	ret;

}
	// .globl	formats
.visible .entry formats(
	.param .u32 formats_param_0,
	.param .u32 formats_param_1,
	.param .u64 formats_param_2,
	.param .f64 formats_param_3,
	.param .f32 formats_param_4
)
{
	.local .align 8 .b8 	__local_depot1[120];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .f32 	%f<2>;
	.reg .b32 	%r<8>;
	.reg .f64 	%fd<3>;
	.reg .b64 	%rd<11>;


	mov.u64 	%SPL, __local_depot1;
	cvta.local.u64 	%SP, %SPL;
	ld.param.u64 	%rd1, [formats_param_2];
	ld.param.f64 	%fd1, [formats_param_3];
	ld.param.f32 	%f1, [formats_param_4];
	add.u64 	%rd2, %SP, 0;
	add.u64 	%rd3, %SPL, 0;
	mov.u32 	%r1, %tid.x;
	add.s32 	%r2, %r1, 65;
	cvt.f64.f32 	%fd2, %f1;
	ld.param.u32 	%r3, [formats_param_0];
	st.local.v2.u32 	[%rd3], {%r1, %r3};
	ld.param.u32 	%r4, [formats_param_1];
	st.local.v2.u32 	[%rd3+8], {%r3, %r4};
	st.local.v2.u32 	[%rd3+16], {%r4, %r4};
	st.local.u32 	[%rd3+24], %r4;
	st.local.u64 	[%rd3+32], %rd1;
	st.local.u64 	[%rd3+40], %rd1;
	st.local.u32 	[%rd3+48], %r2;
	mov.u64 	%rd4, $str$2;
	cvta.global.u64 	%rd5, %rd4;
	st.local.u64 	[%rd3+56], %rd5;
	st.local.f64 	[%rd3+64], %fd1;
	st.local.f64 	[%rd3+72], %fd1;
	st.local.f64 	[%rd3+80], %fd2;
	mov.u64 	%rd6, 4457293557087583675;
	st.local.u64 	[%rd3+88], %rd6;
	mov.u32 	%r5, 7;
	mov.u32 	%r6, 42;
	st.local.v2.u32 	[%rd3+96], {%r6, %r5};
	mov.u64 	%rd7, $str$3;
	cvta.global.u64 	%rd8, %rd7;
	st.local.u64 	[%rd3+104], %rd8;
	st.local.u64 	[%rd3+112], %rd1;
	mov.u64 	%rd9, $str$1;
	cvta.global.u64 	%rd10, %rd9;
	{ // callseq 1, 0
	.reg .b32 temp_param_reg;
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd10;
	.param .b64 param1;
	st.param.b64 	[param1+0], %rd2;
	.param .b32 retval0;
	call.uni (retval0), 
	vprintf, 
	(
	param0, 
	param1
	);
	ld.param.b32 	%r7, [retval0+0];
	} // callseq 1
	ret;

}

`
