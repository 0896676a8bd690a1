package gpu

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// needNVCC skips a test that needs nvcc when it is not on PATH, or fails
// it under CI=true (CI installs Debian's CUDA toolkit).
func needNVCC(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("nvcc"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nvcc is not on PATH: CI must install the CUDA toolkit (.ci/run does)")
		}
		t.Skip("nvcc is not on PATH (no CUDA toolkit here): the compiler tests need it")
	}
}

// skipIfNVRTC skips a test that expects no compiler at all when this build
// has NVRTC (the cuda build on a machine with libnvrtc).
func skipIfNVRTC(t *testing.T) {
	t.Helper()
	if why := nvrtc().available(); why == "" {
		t.Skip("NVRTC is available in this build: a compiler exists whatever PATH says")
	}
}

// TestCompileCUDA compiles a kernel with nvcc, caches the PTX, and maps a
// compile error to the cell's lines.
func TestCompileCUDA(t *testing.T) {
	needNVCC(t)
	t.Setenv(EnvPTXCache, t.TempDir())
	src := "__global__ void twice(int *p) {\n\tp[threadIdx.x] *= 2;\n}\n"
	c, err := CompileCUDADetail(context.Background(), "twice", src, CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.PTX, ".entry _Z5twicePi") || !strings.Contains(c.PTX, ".target sm_52") || c.Compiler == "" || c.Note != "" {
		t.Errorf("compilation: compiler %q, note %q, PTX:\n%s", c.Compiler, c.Note, c.PTX)
	}
	file, err := PTXCacheFile(src, CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != c.PTX {
		t.Errorf("cache file %s: %v", file, err)
	}
	if other, _ := PTXCacheFile(src, CompileOptions{Flags: []string{"-DX=1"}}); other == file {
		t.Error("flags do not change the cache key")
	}

	bad := "__global__ void k(int *p) {\n\tint y = 1;\n\tp[0] = x + y;\n}\n"
	_, err = CompileCUDA(context.Background(), "bad", bad, CompileOptions{})
	var ce *CompileError
	if !errors.As(err, &ce) || !strings.Contains(ce.Log, `cell:3: error: identifier "x" is undefined`) {
		t.Errorf("compile error: %v, want cell:3", err)
	}
	_, err = CompileCUDA(context.Background(), "flags", src, CompileOptions{Flags: []string{"--no-such-flag"}})
	if err == nil {
		t.Error("an unknown nvcc flag compiled")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = CompileCUDA(ctx, "cancelled", src+"\n// another\n", CompileOptions{})
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("cancelled compile: %v", err)
	}
}

// TestCellLines rewrites compiler positions to cell lines.
func TestCellLines(t *testing.T) {
	log := "cell(3): error: identifier \"x\" is undefined\n/tmp/x/cell.cu(12): warning #177-D: variable \"y\" was declared but never referenced\ncell(4, 7): error: expected a \";\"\n1 error detected in the compilation of \"cell.cu\"."
	want := "cell:3: error: identifier \"x\" is undefined\ncell:12: warning #177-D: variable \"y\" was declared but never referenced\ncell:4:7: error: expected a \";\"\n1 error detected in the compilation of \"cell.cu\"."
	if got := cellLines(log); got != want {
		t.Errorf("cellLines:\n got %q\nwant %q", got, want)
	}
}

// TestPTXCache runs CompileCUDA with no compiler on PATH: a miss is an
// error saying what was looked for and what to do, a hit returns the
// cached PTX with a note, and PATHNOTES_PTX_CACHE=off turns the cache off.
func TestPTXCache(t *testing.T) {
	skipIfNVRTC(t)
	dir := t.TempDir()
	t.Setenv(EnvPTXCache, dir)
	t.Setenv("PATH", "")
	src := "__global__ void k(int *p) { *p = 1; }"
	_, err := CompileCUDA(context.Background(), "k", src, CompileOptions{})
	for _, want := range []string{"cannot compile CUDA cell k", "nvcc: not found on PATH", "NVRTC", "no cached PTX for this source, arch and flags in " + dir, "Install the CUDA toolkit", "%%ptx"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("no compiler: %v, want %q", err, want)
		}
	}
	file, err := PTXCacheFile(src, CompileOptions{Arch: "compute_52"})
	if err != nil || !strings.HasPrefix(file, dir) || !strings.HasSuffix(file, ".ptx") {
		t.Fatalf("PTXCacheFile: %q, %v", file, err)
	}
	if err := os.WriteFile(file, []byte(cellTestPTX), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := CompileCUDADetail(context.Background(), "k", src, CompileOptions{})
	if err != nil || c.PTX != cellTestPTX || c.Compiler != "cache" || c.Note != "(cached PTX from "+shownDir(dir)+")" {
		t.Errorf("cache hit: %q %q, %v", c.Compiler, c.Note, err)
	}
	if _, err := CompileCUDA(context.Background(), "k", src, CompileOptions{Arch: "compute_80"}); err == nil {
		t.Error("another arch hit the cache")
	}
	lines := strings.Join(Compilers(), "\n")
	if !strings.Contains(lines, "nvcc: not found on PATH") || !strings.Contains(lines, "PTX cache: "+dir) {
		t.Errorf("Compilers() = %q", lines)
	}
	t.Setenv(EnvPTXCache, "off")
	_, err = CompileCUDA(context.Background(), "k", src, CompileOptions{})
	if err == nil || !strings.Contains(err.Error(), "the PTX cache is off") {
		t.Errorf("cache off: %v", err)
	}
	if f, err := PTXCacheFile(src, CompileOptions{}); f != "" || err != nil {
		t.Errorf("PTXCacheFile with the cache off: %q, %v", f, err)
	}
}

// courseCUDA are kernels in the style of the course ([Musap 2016] chapter
// 1 and 2, the Greek lab handout's Floyd-Warshall): what nvcc emits for
// them at -O3 for compute_52 must run on the emulator.
const courseCUDA = `#include <stdio.h>
#include <limits.h>
__constant__ float weights[3];
__device__ float devData;
__global__ void vecAdd(const float *a, const float *b, float *c, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) c[i] = a[i] + b[i];
}
__global__ void smooth(const float *in, float *out, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i > 0 && i < n - 1) out[i] = weights[0] * in[i - 1] + weights[1] * in[i] + weights[2] * in[i + 1];
}
__global__ void staticSum(const int *in, int *out) {
	__shared__ int sdata[8];
	int t = threadIdx.x;
	sdata[t] = in[t];
	__syncthreads();
	for (int s = 1; s < blockDim.x; s *= 2) {
		if (t % (2 * s) == 0) sdata[t] += sdata[t + s];
		__syncthreads();
	}
	if (t == 0) out[blockIdx.x] = sdata[0];
}
__global__ void minimum(const int *g_idata, const int *u, int *g_odata, int n) {
	extern __shared__ int sdata[];
	unsigned tid = threadIdx.x, blockSize = blockDim.x;
	unsigned i = blockIdx.x * 2 * blockSize + tid, gridSize = 2 * blockSize * gridDim.x;
	int m = INT_MAX;
	while (i < n) {
		if (u[i]) m = min(m, g_idata[i]);
		if (i + blockSize < n && u[i + blockSize]) m = min(m, g_idata[i + blockSize]);
		i += gridSize;
	}
	sdata[tid] = m;
	__syncthreads();
	for (unsigned s = blockSize / 2; s > 32; s >>= 1) {
		if (tid < s) sdata[tid] = min(sdata[tid], sdata[tid + s]);
		__syncthreads();
	}
	if (tid < 32) {
		volatile int *smem = sdata;
		for (int s = 32; s > 0; s >>= 1) {
			smem[tid] = min(smem[tid], smem[tid + s]);
			__syncwarp();
		}
	}
	if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
__global__ void relax(const int *V, const int *E, const int *W, int *C, const int *U, const int *F, int n, int m) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n || !F[i]) return;
	int next = i + 1 < n ? V[i + 1] : m;
	for (int j = V[i]; j < next; j++)
		if (U[E[j]]) atomicMin(&C[E[j]], C[i] + W[j]);
}
__global__ void fw(int *d, int n, int k) {
	int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n && j < n) {
		int ik = d[i * n + k], kj = d[k * n + j];
		if (ik != INT_MAX && kj != INT_MAX && ik + kj < d[i * n + j]) d[i * n + j] = ik + kj;
	}
}
__global__ void mathf(float *x, float *sum, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		x[i] = sqrtf(v) + expf(-v) + logf(1.0f + v) + sinf(v) * cosf(v) + powf(v, 1.5f) + fabsf(-v) / (v + 1.0f) + fminf(v, 2.0f) + floorf(v * 0.5f) + __fdividef(v, 3.0f);
		atomicAdd(sum, v);
	}
}
`

// TestCourseKernels compiles courseCUDA with nvcc and runs every kernel on
// the emulator against results computed here.
func TestCourseKernels(t *testing.T) {
	needNVCC(t)
	t.Setenv(EnvPTXCache, "off")
	ptx, err := CompileCUDA(context.Background(), "course", courseCUDA, CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := emuDevice(t)
	m, err := d.LoadPTX("course", ptx)
	if err != nil {
		t.Fatal(err)
	}
	kernel := func(name string) *Kernel {
		k, err := m.Kernel(name)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	launch := func(name string, grid, block Dim3, shared int, args ...any) {
		t.Helper()
		if err := kernel(name).LaunchShared(grid, block, shared, args...); err != nil {
			t.Fatal(err)
		}
	}

	// vector add, ceiling-division grid with spare threads
	n := 1000
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i)*0.5, float32(n-i)
	}
	da, _ := d.Float32s(a)
	db, _ := d.Float32s(b)
	dc, _ := d.NewBuffer(Float32, n)
	launch("vecAdd", Dim((n+255)/256), Dim(256), 0, da, db, dc, n)
	got, _ := dc.ToFloat32s()
	for i := range got {
		if got[i] != a[i]+b[i] {
			t.Fatalf("vecAdd[%d] = %v, want %v", i, got[i], a[i]+b[i])
		}
	}

	// __constant__ weights
	w, _ := m.VarAs("weights", Float32)
	if err := w.CopyFloat32s([]float32{0.25, 0.5, 0.25}); err != nil {
		t.Fatal(err)
	}
	launch("smooth", Dim((n+127)/128), Dim(128), 0, da, dc, n)
	got, _ = dc.ToFloat32s()
	if want := 0.25*a[9] + 0.5*a[10] + 0.25*a[11]; got[10] != want {
		t.Errorf("smooth[10] = %v, want %v", got[10], want)
	}

	// static shared memory: the 8-element block sum of Fig. 2.8
	in, _ := d.Int32s([]int32{3, 1, 7, 0, 4, 1, 6, 3})
	out, _ := d.NewBuffer(Int32, 1)
	launch("staticSum", Dim(1), Dim(8), 0, in, out)
	if s, _ := out.ToInt32s(); s[0] != 25 {
		t.Errorf("staticSum = %d, want 25", s[0])
	}

	// dynamic shared memory: Martin's masked minimum, warp tail with __syncwarp
	vals, mask := make([]int32, 5000), make([]int32, 5000)
	best := int32(math.MaxInt32)
	for i := range vals {
		vals[i] = int32((i*7919)%10007 + 5)
		if mask[i] = int32(i % 3 % 2); mask[i] == 1 {
			best = min(best, vals[i])
		}
	}
	dv, _ := d.Int32s(vals)
	du, _ := d.Int32s(mask)
	blocks := 4
	partial, _ := d.NewBuffer(Int32, blocks)
	launch("minimum", Dim(blocks), Dim(512), 512*4, dv, du, partial, len(vals))
	mins, _ := partial.ToInt32s()
	if slices.Min(mins) != best {
		t.Errorf("minimum: partial minima %v, want %d overall", mins, best)
	}

	// atomicMin relaxation from vertex 0 of a small graph
	g := mustGraph(t, 4, "0->1 4, 0->2 1, 2->1 2, 1->3 1")
	V, E, W, err := d.GraphCSR(g)
	if err != nil {
		t.Fatal(err)
	}
	C, _ := d.Int32s([]int32{0, math.MaxInt32, math.MaxInt32, math.MaxInt32})
	U, _ := d.Int32s([]int32{0, 1, 1, 1})
	F, _ := d.Int32s([]int32{1, 0, 0, 0})
	launch("relax", Dim(1), Dim(32), 0, V, E, W, C, U, F, 4, g.M())
	if c, _ := C.ToInt32s(); !slices.Equal(c, []int32{0, 4, 1, math.MaxInt32}) {
		t.Errorf("relax: %v", c)
	}

	// Floyd-Warshall, one launch per k
	fwG := mustGraph(t, 5, "0->1 3, 1->2 -2, 2->3 4, 3->0 1, 0->4 10, 2->4 1")
	mat, _ := d.GraphMatrix(fwG)
	for k := range 5 {
		launch("fw", Dim(1, 1), Dim(8, 8), 0, mat, 5, k)
	}
	dist, _ := mat.ToInt32s()
	want := fwG.Dense()
	for k := range 5 {
		for i := range 5 {
			for j := range 5 {
				if ik, kj := want[i*5+k], want[k*5+j]; ik != math.MaxInt32 && kj != math.MaxInt32 && ik+kj < want[i*5+j] {
					want[i*5+j] = ik + kj
				}
			}
		}
	}
	if !slices.Equal(dist, want) {
		t.Errorf("fw:\n got %v\nwant %v", dist, want)
	}

	// float32 math (sqrtf, expf, logf, sinf, cosf, powf, ...) and a float atomicAdd
	xs := []float32{0, 0.5, 1, 2.5, 10, 100}
	dx, _ := d.Float32s(xs)
	sum, _ := d.NewBuffer(Float32, 1)
	launch("mathf", Dim(1), Dim(32), 0, dx, sum, len(xs))
	res, _ := dx.ToFloat32s()
	for i, v := range xs {
		x := float64(v)
		w := math.Sqrt(x) + math.Exp(-x) + math.Log(1+x) + math.Sin(x)*math.Cos(x) + math.Pow(x, 1.5) + x/(x+1) + math.Min(x, 2) + math.Floor(x*0.5) + x/3
		if math.Abs(float64(res[i])-w) > 1e-5*math.Max(1, math.Abs(w)) {
			t.Errorf("mathf(%v) = %v, want %v", v, res[i], w)
		}
	}
	if s, _ := sum.ToFloat32s(); s[0] != 114 {
		t.Errorf("atomicAdd sum = %v, want 114", s[0])
	}
}

// archCompiler is a compiler that builds only the archs in ok, failing
// the others as NVRTC 13 fails compute_52.
type archCompiler struct{ ok map[string]bool }

func (archCompiler) available() string { return "" }
func (archCompiler) describe() string  { return "fake" }
func (c archCompiler) compile(_ context.Context, _, src string, opts CompileOptions) (string, string, error) {
	if !c.ok[opts.Arch] {
		return "", "", errors.New("nvrtcCompileProgram: NVRTC_ERROR_INVALID_OPTION")
	}
	if strings.Contains(src, "syntax error") {
		return "", "cell(1): error: expected a ;", errors.New("nvrtcCompileProgram: NVRTC_ERROR_COMPILATION")
	}
	return "// " + opts.Arch, "", nil
}

// TestCompileArchFallback checks that a defaulted arch the compiler
// rejects is replaced by a newer one, that a chosen arch is not, and
// that source errors are not taken for arch errors.
func TestCompileArchFallback(t *testing.T) {
	ctx := context.Background()
	c := archCompiler{ok: map[string]bool{"compute_75": true, "compute_90": true}}
	ptx, _, used, err := compileArch(ctx, c, "k", "ok", CompileOptions{Arch: defaultArch}, true)
	if err != nil || ptx != "// compute_75" || used.Arch != "compute_75" {
		t.Errorf("defaulted arch: %q %q %v, want compute_75", ptx, used.Arch, err)
	}
	if _, _, _, err := compileArch(ctx, c, "k", "ok", CompileOptions{Arch: defaultArch}, false); err == nil {
		t.Error("a chosen compute_52 fell back to another arch")
	}
	_, log, _, err := compileArch(ctx, c, "k", "syntax error", CompileOptions{Arch: defaultArch}, true)
	if err == nil || !strings.Contains(log, "expected a ;") {
		t.Errorf("source error: log %q, %v", log, err)
	}
	old := archCompiler{ok: map[string]bool{"compute_52": true}}
	if ptx, _, used, err := compileArch(ctx, old, "k", "ok", CompileOptions{Arch: defaultArch}, true); err != nil || used.Arch != defaultArch || ptx != "// compute_52" {
		t.Errorf("old compiler: %q %q %v", ptx, used.Arch, err)
	}
}
