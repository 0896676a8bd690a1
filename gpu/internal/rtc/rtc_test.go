package rtc

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/internal/testenv"
	"github.com/pathnotes/pathnotes/internal/toolchain"
)

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
	testenv.NeedNVCC(t)
	t.Setenv(EnvPTXCache, t.TempDir())
	src := "__global__ void twice(int *p) {\n\tp[threadIdx.x] *= 2;\n}\n"
	c, err := CompileCUDADetail(context.Background(), "twice", src, CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// nvcc 11.8 builds the default compute_52; CUDA 13's NVRTC (a cuda
	// build on a card) no longer does and falls back to compute_75, which
	// it says in the note and which then keys the cache.
	used := CompileOptions{}
	switch {
	case strings.Contains(c.PTX, ".target sm_52") && c.Note == "":
	case strings.Contains(c.PTX, ".target sm_75") && strings.Contains(c.Note, "compiled for compute_75"):
		used.Arch = "compute_75"
	default:
		t.Errorf("compilation: compiler %q, note %q, PTX:\n%s", c.Compiler, c.Note, c.PTX)
	}
	if !strings.Contains(c.PTX, ".entry _Z5twicePi") || c.Compiler == "" {
		t.Errorf("compilation: compiler %q, PTX:\n%s", c.Compiler, c.PTX)
	}
	file, err := PTXCacheFile(src, used)
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

// cachedPTX stands for a PTX file in the cache: the cache returns what it
// holds without reading it.
const cachedPTX = ".version 7.0\n.target sm_52\n.address_size 64\n"

// TestPTXCache runs CompileCUDA with no compiler on PATH: a miss is an
// error saying what was looked for and what to do, a hit returns the
// cached PTX with a note, and PATHNOTES_PTX_CACHE=off turns the cache off.
func TestPTXCache(t *testing.T) {
	skipIfNVRTC(t)
	dir := t.TempDir()
	t.Setenv(EnvPTXCache, dir)
	t.Setenv("PATH", "")
	t.Setenv(EnvClang, "")
	if c := toolchain.Clang(); c.Path != "" {
		t.Skipf("%s is found whatever PATH says (Homebrew's llvm on a Mac)", c.Describe())
	}
	src := "__global__ void k(int *p) { *p = 1; }"
	_, err := CompileCUDA(context.Background(), "k", src, CompileOptions{})
	for _, want := range []string{"cannot compile CUDA cell k", "nvcc: not found on PATH", "NVRTC", "clang: not found on PATH",
		"no cached PTX for this source, arch and flags in " + dir, "Install the CUDA toolkit", "install clang (apt install clang", "%%ptx"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("no compiler: %v, want %q", err, want)
		}
	}
	file, err := PTXCacheFile(src, CompileOptions{Arch: "compute_52"})
	if err != nil || !strings.HasPrefix(file, dir) || !strings.HasSuffix(file, ".ptx") {
		t.Fatalf("PTXCacheFile: %q, %v", file, err)
	}
	if err := os.WriteFile(file, []byte(cachedPTX), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := CompileCUDADetail(context.Background(), "k", src, CompileOptions{})
	if err != nil || c.PTX != cachedPTX || c.Compiler != "cache" || c.Note != "(cached PTX from "+shownDir(dir)+")" {
		t.Errorf("cache hit: %q %q, %v", c.Compiler, c.Note, err)
	}
	if _, err := CompileCUDA(context.Background(), "k", src, CompileOptions{Arch: "compute_80"}); err == nil {
		t.Error("another arch hit the cache")
	}
	// clang's PTX has keys of its own: an unset compiler takes it after
	// NVIDIA's, clang does not take NVIDIA's.
	if _, err := CompileCUDA(context.Background(), "k", src, CompileOptions{Compiler: "clang"}); err == nil {
		t.Error("clang took nvcc's cached PTX")
	}
	other := src + "\n// clang's"
	clangFile, err := PTXCacheFile(other, CompileOptions{Compiler: "clang"})
	if err != nil || clangFile == file {
		t.Fatalf("clang's PTXCacheFile: %q, %v", clangFile, err)
	}
	if err := os.WriteFile(clangFile, []byte(cachedPTX+"// clang\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, compiler := range []string{"", "clang", "Clang"} {
		if c, err := CompileCUDADetail(context.Background(), "k", other, CompileOptions{Compiler: compiler}); err != nil || c.Compiler != "cache" || !strings.HasSuffix(c.PTX, "// clang\n") {
			t.Errorf("compiler %q: clang's cached PTX: %q, %v", compiler, c.Compiler, err)
		}
	}
	if _, err := CompileCUDA(context.Background(), "k", other, CompileOptions{Compiler: "nvcc"}); err == nil {
		t.Error("nvcc took clang's cached PTX")
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
