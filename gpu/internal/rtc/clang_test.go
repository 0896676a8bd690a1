package rtc

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/internal/testenv"
)

// clangKernel uses what the header gives clang: the toolkit's headers
// that it accepts, atomics, warp functions, float math and printf.
const clangKernel = `#include <stdio.h>
#include <cuda_runtime.h>
#include <limits.h>
__global__ void __launch_bounds__(128) k(int *p, float *f, unsigned *u) {
	__shared__ int s[32];
	s[threadIdx.x] = p[threadIdx.x];
	__syncthreads();
	atomicMin(p, s[31 - threadIdx.x]); atomicMax(p + 1, 3); atomicSub(p + 2, 1); atomicExch(p + 3, 4);
	atomicCAS(p + 4, 0, 1); atomicAnd(p + 5, 3); atomicOr(p + 6, 3); atomicXor(p + 7, 3); atomicAdd(u, 2u);
	int v = __shfl_sync(0xffffffff, s[threadIdx.x], 3) + __shfl_down_sync(0xffffffff, p[0], 1);
	if (__all_sync(0xffffffff, v > 0) || __any_sync(0xffffffff, v < 0)) p[8] = __ballot_sync(0xffffffff, v > 2);
	atomicAdd(f, 1.5f);
	f[1] = expf(f[2]) + sqrtf(f[3]) + logf(f[4]) + powf(f[5], 1.5f) + fminf(f[1], 2) + fabsf(f[3]) + floorf(f[4]);
	p[9] = min(p[1], INT_MAX) + max(p[2], 0) + abs(p[3]);
	printf("%d %f\n", v, f[1]);
}
`

// TestClangCompile compiles with clang: PTX for sm_52 whose instructions
// are the header's builtins, cached under a key of its own; errors on the
// cell's lines; a missing toolkit header explained.
func TestClangCompile(t *testing.T) {
	testenv.NeedClang(t)
	t.Setenv(EnvPTXCache, t.TempDir())
	opts := CompileOptions{Compiler: "clang"}
	c, err := CompileCUDADetail(context.Background(), "k", clangKernel, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Compiler, "clang ") {
		t.Errorf("compiler %q, want clang", c.Compiler)
	}
	for _, want := range []string{".target sm_52", ".entry _Z1kPiPfPj", "atom.global.min.s32", "atom.global.add.f32", "shfl.sync.idx.b32",
		"vote.sync.ballot.b32", "ex2.approx.f32", "lg2.approx.f32", "sqrt.rn.f32", "vprintf", ".maxntid 128"} {
		if !strings.Contains(c.PTX, want) {
			t.Errorf("clang's PTX lacks %q:\n%s", want, c.PTX)
		}
	}
	file, err := PTXCacheFile(clangKernel, opts)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != c.PTX {
		t.Errorf("cache file %s: %v", file, err)
	}
	if nv, _ := PTXCacheFile(clangKernel, CompileOptions{}); nv == file {
		t.Error("the compiler does not change the cache key")
	}
	if again, err := CompileCUDADetail(context.Background(), "k", clangKernel, opts); err != nil || again.Compiler != "cache" {
		t.Errorf("second compile: %q, %v; want the cache", again.Compiler, err)
	}

	bad := "__global__ void k(int *p) {\n\tint y = 1;\n\tp[0] = x + y;\n}\n"
	_, err = CompileCUDA(context.Background(), "bad", bad, opts)
	var ce *CompileError
	if !errors.As(err, &ce) || !strings.Contains(ce.Log, "cell:3: error: use of undeclared identifier 'x'") || !strings.HasPrefix(ce.Compiler, "clang") {
		t.Errorf("compile error: %v, want it on cell:3", err)
	}
	_, err = CompileCUDA(context.Background(), "cg", "#include <stdio.h>\n#include <cooperative_groups.h>\n__global__ void k() {}\n", opts)
	for _, want := range []string{"cell:2: fatal error: 'cooperative_groups.h' file not found", "clang without the CUDA toolkit has no <cooperative_groups.h>", "atomicAdd", "--compiler=nvcc"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing header: %v, want %q in it", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), os.TempDir()) {
		t.Errorf("the message shows a temporary path: %v", err)
	}
	fast, err := CompileCUDA(context.Background(), "fast", "__global__ void k(float *f) { f[0] = expf(f[1]) / f[2]; }", CompileOptions{Compiler: "clang", Flags: []string{"-use_fast_math", "--expt-relaxed-constexpr", "-DN=3"}})
	if err != nil || !strings.Contains(fast, "div.approx") {
		t.Errorf("nvcc's flags for clang: %v\n%s", err, fast)
	}
	_, err = CompileCUDA(context.Background(), "k", clangKernel, CompileOptions{Compiler: "clang", Flags: []string{"--no-such-flag"}})
	if err == nil || !strings.Contains(err.Error(), "no-such-flag") {
		t.Errorf("an unknown clang flag: %v", err)
	}
	_, err = CompileCUDA(context.Background(), "k", clangKernel, CompileOptions{Compiler: "gcc"})
	if err == nil || !strings.Contains(err.Error(), `unknown CUDA compiler "gcc" (use nvrtc, nvcc, clang)`) {
		t.Errorf("unknown compiler: %v", err)
	}
}

// TestClangFallback compiles with clang when neither NVRTC nor nvcc is
// there, clang named by PATHNOTES_CLANG; a clang that is not there is
// said so.
func TestClangFallback(t *testing.T) {
	path := testenv.NeedClang(t).Path
	skipIfNVRTC(t)
	t.Setenv(EnvPTXCache, "off")
	t.Setenv("PATH", "")
	t.Setenv(EnvClang, path)
	c, err := CompileCUDADetail(context.Background(), "twice", "__global__ void twice(int *p) { p[threadIdx.x] *= 2; }", CompileOptions{})
	if err != nil || !strings.HasPrefix(c.Compiler, "clang ") || !strings.Contains(c.PTX, ".entry _Z5twicePi") {
		t.Errorf("fallback: compiler %q, %v", c.Compiler, err)
	}
	if lines := strings.Join(Compilers(), "\n"); !strings.Contains(lines, "nvcc: not found on PATH") || !strings.Contains(lines, "clang 1") {
		t.Errorf("Compilers:\n%s", lines)
	}
	t.Setenv(EnvClang, "no-such-clang")
	_, err = CompileCUDA(context.Background(), "twice", "__global__ void twice(int *p) {}", CompileOptions{Compiler: "clang"})
	if err == nil || !strings.Contains(err.Error(), "clang: PATHNOTES_CLANG=no-such-clang names no executable file") {
		t.Errorf("missing clang: %v", err)
	}
}

// TestClangArch maps the virtual architecture to clang's GPU and PTX
// version.
func TestClangArch(t *testing.T) {
	for _, c := range []struct{ arch, gpu, ptx string }{
		{"compute_52", "sm_52", "ptx64"}, {"sm_75", "sm_75", "ptx64"}, {"compute_80", "sm_80", "ptx70"},
		{"compute_86", "sm_86", "ptx71"}, {"compute_90a", "sm_90a", "ptx78"},
	} {
		gpu, ptx, err := clangArch(c.arch)
		if err != nil || gpu != c.gpu || ptx != c.ptx {
			t.Errorf("clangArch(%q) = %q, %q, %v; want %q, %q", c.arch, gpu, ptx, err, c.gpu, c.ptx)
		}
	}
	if _, _, err := clangArch("kepler"); err == nil {
		t.Error("clangArch accepted kepler")
	}
}
