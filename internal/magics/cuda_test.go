package magics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/traefik/yaegi/interp"

	"github.com/pathnotes/pathnotes/bindings"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
	"github.com/pathnotes/pathnotes/internal/testenv"
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
	t.Setenv(cells.EnvPTXCache, cache)
	k := new(cells.Session)
	s, err := session.New(session.Options{Symbols: []interp.Exports{bindings.Symbols, bindings.Cells(k)}, Prelude: bindings.Prelude})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := Register(s, k); err != nil {
		t.Fatal(err)
	}
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
a, _ := cells.Float32s(d, []float32{1, 2, 3})
b, _ := cells.Float32s(d, []float32{10, 20, 30})
c, _ := cells.NewBuffer(d, cells.Float32, 3)
err := cells.Launch("vecAdd", gpu.Dim(1), gpu.Dim(32), a, b, c, 3)
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
	_, printed, err = run(t, s, `err = cells.Launch("vecAdd", gpu.Dim(1), gpu.Dim(2048), a, b, c, 3)
fmt.Printf("Error %d : %s\n", cells.ErrorCode(err), cells.ErrorString(err))`)
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
	_, printed, err := run(t, s, `v, _ := cells.GetVar("devData")
v.CopyFloat32s([]float32{3.14})
cells.Launch("checkGlobal", gpu.Dim(1), gpu.Dim(1))
got, _ := v.ToFloat32s()
fmt.Printf("Host: the value changed by the kernel to %.2f\n", got[0])`)
	want := "Device: the value of the global variable is 3.140000\nHost: the value changed by the kernel to 5.14\n"
	if err != nil || printed != want {
		t.Errorf("printed %q, %v; want %q", printed, err, want)
	}
}

// TestCUDACellCompileError checks that nvcc's errors name the cell's lines.
func TestCUDACellCompileError(t *testing.T) {
	testenv.NeedNVCC(t) // without nvcc, TestCUDACellCache tests the cached path
	s, _ := cellSession(t)
	// --compiler nvcc: a cuda build on a machine with NVRTC would take it.
	_, _, err := run(t, s, "%%cuda --compiler nvcc\n__global__ void k(int *p) {\n  p[0] = x;\n}")
	if err == nil || !strings.Contains(err.Error(), `cell:3: error: identifier "x" is undefined`) {
		t.Errorf("syntax error: %v, want it on cell line 3", err)
	}
	res, _, err := run(t, s, "%%cuda --compiler nvcc\n__device__ int hits;\n"+vecAddCUDA)
	if err != nil || !strings.Contains(res, "module vecAdd on PTX emulator") || !strings.Contains(res, "compiled by nvcc") {
		t.Fatalf("%%%%cuda: %q, %v", res, err)
	}
	_, printed, err := run(t, s, launchCell+"\nh, err := cells.GetVar(\"hits\")\nfmt.Println(h.Type(), err)")
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
	if nvrtcCompiles() {
		// A cuda build on a machine with NVRTC: no PATH hides it, and the
		// cell would compile. The build without cuda (CI's) checks the error.
		t.Log("NVRTC compiles in this build: the no-compiler error is not reachable here")
	} else {
		_, _, err := run(t, s, "%%cuda\n"+vecAddCUDA)
		for _, want := range []string{"no CUDA compiler", "nvcc: not found on PATH", "no cached PTX", cache, "Install the CUDA toolkit", "%%ptx"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("no compiler, empty cache: %v, want %q in it", err, want)
			}
		}
	}
	file, err := cells.PTXCacheFile(cudaCellSource("\n"+vecAddCUDA), cells.CompileOptions{}) // the session blanks the magic's line
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

// cellTestPTX is package cells' test PTX (see gpu/cells/cells_test.go for its source).
var cellTestPTX = mustReadFile("../../gpu/cells/testdata/celltest.ptx")

// printfTestPTX is package cells' printf test PTX (see gpu/cells/cells_test.go).
var printfTestPTX = mustReadFile("../../gpu/cells/testdata/printf.ptx")

// mustReadFile returns a test data file's text; the tests cannot run
// without it.
func mustReadFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestCUDACellClang compiles %%cuda cells with clang, as a laptop without
// the CUDA toolkit does: the chapter-1 vecAdd runs, its invalid
// configuration gives error 9 as with nvcc's PTX, errors name the cell's
// lines, a toolkit header clang lacks is explained, and %gpu lists clang.
func TestCUDACellClang(t *testing.T) {
	testenv.NeedClang(t)
	s, _ := cellSession(t)
	res, _, err := run(t, s, "%%cuda --compiler=clang\n#include <stdio.h>\n#include <cuda_runtime.h>\n__device__ int hits;\n"+vecAddCUDA)
	if err != nil || !strings.Contains(res, "module vecAdd on PTX emulator") || !strings.Contains(res, "compiled by clang ") {
		t.Fatalf("%%%%cuda --compiler=clang: %q, %v", res, err)
	}
	_, printed, err := run(t, s, launchCell+"\nh, err := cells.GetVar(\"hits\")\nfmt.Println(h.Type(), err)")
	if err != nil || printed != "[11 22 33] <nil>\nint32 <nil>\n" {
		t.Errorf("launch: %q, %v", printed, err)
	}
	_, printed, err = run(t, s, `err = cells.Launch("vecAdd", gpu.Dim(1), gpu.Dim(2048), a, b, c, 3)
fmt.Printf("Error %d : %s\n", cells.ErrorCode(err), cells.ErrorString(err))`)
	if err != nil || printed != "Error 9 : invalid configuration argument\n" {
		t.Errorf("config error cell: %q, %v", printed, err)
	}
	// clang's call of vprintf (a double for %f, a pointer for %s) runs on the emulator.
	if _, _, err := run(t, s, "%%cuda --compiler=clang\n#include <stdio.h>\n__device__ float devData;\n"+
		"__global__ void checkGlobal() {\n  printf(\"Device: %d %f %s %c %5.2e\\n\", (int)threadIdx.x, devData, \"ok\", 'z', 1234.5);\n  devData += 2.0f;\n}"); err != nil {
		t.Fatal(err)
	}
	_, printed, err = run(t, s, `v, _ := cells.GetVar("devData")
v.CopyFloat32s([]float32{3.14})
cells.Launch("checkGlobal", gpu.Dim(1), gpu.Dim(2))
got, _ := v.ToFloat32s()
fmt.Printf("Host: %.2f\n", got[0])`)
	if want := "Device: 0 3.140000 ok z 1.23e+03\nDevice: 1 3.140000 ok z 1.23e+03\nHost: 5.14\n"; err != nil || printed != want {
		t.Errorf("printf: %q, %v; want %q", printed, err, want)
	}
	_, _, err = run(t, s, "%%cuda --compiler clang\n__global__ void k(int *p) {\n  p[0] = x;\n}")
	if err == nil || !strings.Contains(err.Error(), "cell:3: error: use of undeclared identifier 'x'") {
		t.Errorf("syntax error: %v, want it on cell line 3", err)
	}
	_, _, err = run(t, s, "%%cuda --compiler=clang\n#include <cooperative_groups.h>\n__global__ void k(int *p) {}")
	if err == nil || !strings.Contains(err.Error(), "cell:2: fatal error: 'cooperative_groups.h' file not found") ||
		!strings.Contains(err.Error(), "clang without the CUDA toolkit has no <cooperative_groups.h>") {
		t.Errorf("missing header: %v", err)
	}
	_, _, err = run(t, s, "%%cuda --compiler=gcc\n"+vecAddCUDA)
	if err == nil || !strings.Contains(err.Error(), `unknown compiler "gcc" (use nvrtc, nvcc, clang)`) {
		t.Errorf("--compiler=gcc: %v", err)
	}
	res, _, err = run(t, s, "%gpu")
	if err != nil || !strings.Contains(res, "cuda compilers: ") || !strings.Contains(res, "clang 1") {
		t.Errorf("%%gpu does not list clang: %q, %v", res, err)
	}
}

// nvrtcCompiles reports whether this process loads an NVRTC that compiles
// (a cuda build on a machine with libnvrtc).
func nvrtcCompiles() bool {
	for _, l := range cells.Compilers() {
		if strings.HasPrefix(l, "NVRTC") && strings.HasSuffix(l, ": compiles") {
			return true
		}
	}
	return false
}
