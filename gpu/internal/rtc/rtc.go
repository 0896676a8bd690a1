// Package rtc compiles CUDA C kept in notebook cells to PTX: NVRTC where
// the cuda build finds libnvrtc at run time, else `nvcc -ptx` from PATH,
// else clang (its CUDA front end, with a header of our own in place of the
// CUDA toolkit's, see clang.go); the PTX is cached on disk so that a notebook runs where no compiler
// exists (CI runs the notebooks on the emulator without a CUDA toolkit).
// It needs no device; package gpu loads what it compiles.
package rtc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pathnotes/pathnotes/internal/atomicfile"
	"github.com/pathnotes/pathnotes/internal/toolchain"
)

// CompileOptions configure CompileCUDA.
type CompileOptions struct {
	// Arch is the virtual architecture the PTX targets; "" means
	// "compute_52", which every driver of the last years JIT-compiles for
	// any later card, and which the emulator runs.
	Arch string
	// Flags are passed to the compiler as they are (e.g. "-use_fast_math",
	// "-DN=256").
	Flags []string
	// Compiler picks the compiler: "nvrtc", "nvcc" or "clang"; "" tries
	// NVRTC, then nvcc, then clang, taking the first one found.
	Compiler string
}

// CompilerNames are the values of CompileOptions.Compiler, in the order
// an unset Compiler tries them.
var CompilerNames = []string{"nvrtc", "nvcc", "clang"}

// EnvPTXCache is the environment variable that sets the PTX cache's
// directory; "off" disables the cache. Unset, it is ".pathnotes-ptx" in
// the working directory (the notebook's directory under Jupyter and
// `pathnotes run`).
const EnvPTXCache = "PATHNOTES_PTX_CACHE"

// defaultArch is the PTX target of cell kernels.
const defaultArch = "compute_52"

// Compilation is what CompileCUDADetail did: the PTX, which compiler made
// it (or that it came from the cache), and where the cache is.
type Compilation struct {
	PTX      string
	Compiler string // e.g. "nvcc 11.8" or "NVRTC 12.4"; "cache" for a cache hit
	CacheDir string // "" when the cache is off
	// Note is a remark for the user, e.g. "(cached PTX from
	// .pathnotes-ptx)", or "".
	Note string
}

// CompileError is CUDA C that failed to compile, with the compiler's log;
// the log's file positions are rewritten to the cell's lines, as
// "cell:3: error: identifier "x" is undefined".
type CompileError struct {
	Name     string // the module being compiled ("" when the cell names none)
	Compiler string
	Log      string
}

// Error gives the compiler and its log.
func (e *CompileError) Error() string {
	return fmt.Sprintf("compiling CUDA cell%s with %s failed:\n%s", named(e.Name), e.Compiler, e.Log)
}

// CompileCUDA compiles CUDA C source (a %%cuda cell) to PTX. A PTX of
// the same source, arch, flags and compiler in the PTX cache (see
// EnvPTXCache) is used as it is; otherwise it tries NVRTC first where the
// cuda build finds libnvrtc, then `nvcc -ptx` from PATH, then clang
// (opts.Compiler picks one of them), and stores the PTX in the cache.
// When the arch is left to its default (compute_52) and the compiler no
// longer builds it (CUDA 13), the PTX is made for compute_75 instead.
// A source without a #line directive is numbered from line 1 of "cell".
func CompileCUDA(ctx context.Context, name, source string, opts CompileOptions) (ptx string, err error) {
	c, err := CompileCUDADetail(ctx, name, source, opts)
	return c.PTX, err
}

// CompileCUDADetail is CompileCUDA reporting which compiler ran and
// whether the PTX came from the cache.
func CompileCUDADetail(ctx context.Context, name, source string, opts CompileOptions) (Compilation, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	defaulted := opts.Arch == ""
	source, opts = normalize(source, opts)
	chosen, err := pickCompilers(opts.Compiler)
	if err != nil {
		return Compilation{}, err
	}
	dir, err := PTXCacheDir()
	if err != nil {
		return Compilation{}, err
	}
	// The cache comes first: the same source, arch, flags and compiler give
	// the same PTX, and a notebook then runs the PTX it was committed with.
	if dir != "" {
		for _, family := range cacheFamilies(chosen) {
			if b, err := os.ReadFile(filepath.Join(dir, cacheKey(source, opts, family)+".ptx")); err == nil {
				return Compilation{PTX: string(b), Compiler: "cache", CacheDir: dir,
					Note: fmt.Sprintf("(cached PTX from %s)", shownDir(dir))}, nil
			}
		}
	}
	var tried []string
	var failed error // the last compiler's error: NVRTC may fail where nvcc works (host headers)
	for _, c := range chosen {
		if failed != nil && family(c) == "clang" {
			break // the toolkit's compiler judged the source: its errors are the ones to show
		}
		if why := c.available(); why != "" {
			tried = append(tried, why)
			continue
		}
		ptx, log, used, err := compileArch(ctx, c, name, source, opts, defaulted)
		if ctx.Err() != nil {
			return Compilation{}, fmt.Errorf("gpu: compiling CUDA cell%s: interrupted: %w", named(name), ctx.Err())
		}
		if err != nil {
			failed = fmt.Errorf("gpu: compiling CUDA cell%s with %s: %w", named(name), c.describe(), err)
			if log != "" {
				failed = &CompileError{Name: name, Compiler: c.describe(), Log: cellLines(log)}
			}
			continue
		}
		comp := Compilation{PTX: ptx, Compiler: c.describe(), CacheDir: dir}
		if used.Arch != opts.Arch {
			comp.Note = fmt.Sprintf("(this compiler no longer builds %s; compiled for %s)", opts.Arch, used.Arch)
		}
		if dir != "" {
			if err := storePTX(dir, cacheKey(source, used, family(c)), ptx); err != nil {
				comp.Note = strings.TrimSpace(comp.Note + fmt.Sprintf(" (could not cache the PTX: %v)", err))
			}
		}
		return comp, nil
	}
	if failed != nil {
		return Compilation{}, failed
	}
	cache := "the PTX cache is off (" + EnvPTXCache + "=off)"
	if dir != "" {
		cache = "no cached PTX for this source, arch and flags in " + dir
	}
	return Compilation{}, fmt.Errorf("gpu: cannot compile CUDA cell%s: no CUDA compiler (%s), and %s. "+
		"Install the CUDA toolkit and put its bin directory (with nvcc) on PATH, or install clang (apt install clang, brew install llvm, "+
		"or the LLVM installer), or write the kernel as PTX in a %%%%ptx cell",
		named(name), strings.Join(tried, "; "), cache)
}

// shownDir is dir as a message shows it: relative to the working
// directory when it is under it (".pathnotes-ptx" beside a notebook), so
// that notebook outputs do not carry the machine's paths.
func shownDir(dir string) string {
	wd, err := os.Getwd()
	if err != nil {
		return dir
	}
	if rel, err := filepath.Rel(wd, dir); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return dir
}

// newerArchs are the virtual architectures tried, in order, when a
// compiler rejects the default compute_52: CUDA 13 builds nothing older
// than compute_75 (Turing). The PTX then needs a newer card and driver,
// and a newer PTX ISA than the emulator reads.
var newerArchs = []string{"compute_75", "compute_90"}

// compileArch runs c with opts and, when the arch was defaulted and c
// rejects it, with each of newerArchs; it returns the options that
// compiled.
func compileArch(ctx context.Context, c compiler, name, source string, opts CompileOptions, defaulted bool) (ptx, log string, used CompileOptions, err error) {
	ptx, log, err = c.compile(ctx, name, source, opts)
	if err == nil || !defaulted || !archRejected(err, log) {
		return ptx, log, opts, err
	}
	for _, arch := range newerArchs {
		next := opts
		next.Arch = arch
		ptx, log2, err2 := c.compile(ctx, name, source, next)
		if err2 == nil || !archRejected(err2, log2) {
			return ptx, log2, next, err2
		}
	}
	return "", log, opts, err
}

// archRejected reports whether a compiler's failure is about the target
// architecture rather than the source: NVRTC's invalid option, nvcc's
// "Unsupported gpu architecture".
func archRejected(err error, log string) bool {
	text := strings.ToLower(err.Error() + " " + log)
	return strings.Contains(text, "unsupported gpu architecture") || strings.Contains(text, "invalid_option") ||
		strings.Contains(text, "invalid value for --gpu-architecture")
}

// named formats a cell's name for messages: " NAME", or nothing.
func named(name string) string {
	if name == "" {
		return ""
	}
	return " " + name
}

// Compilers describes the CUDA compilers this process can use, and the
// PTX cache, one line each (for %gpu and `pathnotes info`).
func Compilers() []string {
	var lines []string
	for _, c := range compilers() {
		if why := c.available(); why != "" {
			lines = append(lines, why)
		} else {
			lines = append(lines, c.describe()+": compiles")
		}
	}
	switch dir, err := PTXCacheDir(); {
	case err != nil:
		lines = append(lines, "PTX cache: "+err.Error())
	case dir == "":
		lines = append(lines, "PTX cache: off ("+EnvPTXCache+"=off)")
	default:
		lines = append(lines, "PTX cache: "+shownDir(dir))
	}
	return lines
}

// PTXCacheDir returns the absolute directory of the PTX cache, or "" when
// PATHNOTES_PTX_CACHE=off.
func PTXCacheDir() (string, error) {
	dir := strings.TrimSpace(os.Getenv(EnvPTXCache))
	switch dir {
	case "off":
		return "", nil
	case "":
		dir = ".pathnotes-ptx"
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("gpu: PTX cache directory %q: %w", dir, err)
	}
	return abs, nil
}

// normalize applies the defaults: the arch, and a #line directive that
// numbers a source without one from line 1 of "cell".
func normalize(source string, opts CompileOptions) (string, CompileOptions) {
	if opts.Arch == "" {
		opts.Arch = defaultArch
	}
	opts.Compiler = strings.ToLower(strings.TrimSpace(opts.Compiler))
	if !strings.HasPrefix(strings.TrimSpace(source), "#line") {
		source = "#line 1 \"cell\"\n" + source
	}
	return source, opts
}

// PTXCacheFile returns the file in which the PTX cache keeps the PTX of
// source compiled with opts ("" when the cache is off), for a notebook's
// author who wants to check that the cache holds a cell's PTX.
func PTXCacheFile(source string, opts CompileOptions) (string, error) {
	dir, err := PTXCacheDir()
	if err != nil || dir == "" {
		return "", err
	}
	source, opts = normalize(source, opts)
	family := ""
	if opts.Compiler == "clang" {
		family = "clang"
	}
	return filepath.Join(dir, cacheKey(source, opts, family)+".ptx"), nil
}

// cacheKey is the SHA-256 of what decides the PTX: source, arch, flags and
// the compiler's family: "" for NVIDIA's NVRTC and nvcc (one front end;
// the key then is what it was before clang compiled cells, so committed
// caches stay valid), "clang" for clang.
func cacheKey(source string, opts CompileOptions, family string) string {
	h := sha256.New()
	parts := append([]string{source, opts.Arch}, opts.Flags...)
	if family != "" {
		parts = append(parts, "compiler="+family)
	}
	for _, s := range parts {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// storePTX writes the PTX into the cache atomically (a temporary file
// renamed), so that a reader never sees half a file.
func storePTX(dir, key, ptx string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, key+".ptx"), []byte(ptx), 0o644)
}

// compiler is one way to turn CUDA C into PTX.
type compiler interface {
	// available returns "" when the compiler can run, else what was
	// looked for and not found.
	available() string
	describe() string
	// compile returns the PTX, or the compiler's log (with err) when the
	// source has errors, or err alone when the compiler could not run.
	compile(ctx context.Context, name, source string, opts CompileOptions) (ptx, log string, err error)
}

// compilers lists the compilers in the order they are tried, in the order
// of CompilerNames.
func compilers() []compiler { return []compiler{nvrtc(), nvccCompiler{}, clangCompiler{}} }

// pickCompilers returns the compilers that CompileOptions.Compiler name
// allows: all of them for "".
func pickCompilers(name string) ([]compiler, error) {
	all := compilers()
	if name == "" {
		return all, nil
	}
	for i, n := range CompilerNames {
		if name == n {
			return all[i : i+1], nil
		}
	}
	return nil, fmt.Errorf("gpu: unknown CUDA compiler %q (use %s)", name, strings.Join(CompilerNames, ", "))
}

// family is the cache key's name for what c makes (see cacheKey).
func family(c compiler) string {
	if _, ok := c.(clangCompiler); ok {
		return "clang"
	}
	return ""
}

// cacheFamilies lists the cache keys' families that the compilers cs may
// take a cached PTX from, in their order.
func cacheFamilies(cs []compiler) []string {
	var fs []string
	for _, c := range cs {
		if f := family(c); len(fs) == 0 || fs[len(fs)-1] != f {
			fs = append(fs, f)
		}
	}
	return fs
}

// nvccCompiler runs `nvcc -ptx` from PATH, with the host compiler that
// package toolchain found it needs.
type nvccCompiler struct{}

func (nvccCompiler) available() string { return unusable(toolchain.NVCC()) }

func (nvccCompiler) describe() string { return toolchain.NVCC().Describe() }

// unusable returns "" when c compiles, else the line that says why not.
func unusable(c toolchain.Compiler) string {
	if c.Works() {
		return ""
	}
	return c.String()
}

func (nvccCompiler) compile(ctx context.Context, name, source string, opts CompileOptions) (string, string, error) {
	tmp, err := os.MkdirTemp("", "pathnotes-nvcc-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "cell.cu")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		return "", "", err
	}
	out := filepath.Join(tmp, "cell.ptx")
	tool := toolchain.NVCC()
	args := append(append(append([]string{}, tool.Args...), "-ptx", "-arch="+opts.Arch), opts.Flags...)
	args = append(args, "-o", out, src)
	cmd := exec.CommandContext(ctx, tool.Path, args...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", "", fmt.Errorf("interrupted: %w", ctx.Err())
		}
		text := strings.TrimSpace(strings.ReplaceAll(log.String(), src, "cell.cu"))
		if text == "" {
			return "", "", fmt.Errorf("nvcc %s: %w", strings.Join(args, " "), err)
		}
		return "", text, err
	}
	ptx, err := os.ReadFile(out)
	return string(ptx), "", err
}

// compilerPos matches a position in a compiler's log: nvcc and NVRTC
// write `cell(3): error: ...`, with an optional column in some versions
// (`cell(3, 14)` or `cell:3:14`).
var compilerPos = regexp.MustCompile(`(?m)^(?:[^\s:()]*/)?(cell(?:\.cu)?)(?:\((\d+)(?:,\s*(\d+))?\)|:(\d+)(?::(\d+))?):\s*`)

// cellLines rewrites the log's positions as "cell:LINE[:COL]: ".
func cellLines(log string) string {
	return compilerPos.ReplaceAllStringFunc(log, func(s string) string {
		m := compilerPos.FindStringSubmatch(s)
		line, col := m[2]+m[4], m[3]+m[5]
		if col != "" {
			return "cell:" + line + ":" + col + ": "
		}
		return "cell:" + line + ": "
	})
}
