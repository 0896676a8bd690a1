// Package toolchain finds the CUDA C compilers of this machine, nvcc and
// clang, and tells whether each one can compile. Being installed is not
// enough: nvcc needs a host compiler that its release accepts (Debian's
// CUDA 11.8 toolkit installed beside gcc 12 and clang 14 finds none), and
// a clang may lack the NVPTX back end. So each compiler is tried once on a
// trivial kernel, and one that fails is reported with the reason. When
// nvcc's own message names a host compiler it would accept ("Use 'nvcc
// -ccbin clang-14' to use that instead"), it is tried again with that one,
// and the flags that made it work are kept for every later call.
//
// The result is kept for the process, keyed by what decides it (the
// executable, its size and time, PATH and PATHNOTES_CLANG), so a changed
// PATH is looked at afresh.
package toolchain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EnvClang is the environment variable that names the clang binary that
// compiles CUDA C; unset, clang is looked up on PATH (then as clang-20 ...
// clang-14, and in Homebrew's keg-only llvm directories).
const EnvClang = "PATHNOTES_CLANG"

// Compiler is one CUDA C compiler of this machine, as found and tried.
type Compiler struct {
	// Name is "nvcc" or "clang".
	Name string
	// Path is the executable, or "" when none was found.
	Path string
	// Version is the release the compiler reports ("11.8", "14.0.6"), or "".
	Version string
	// Args go before every call's own arguments: for nvcc that needs it,
	// the host compiler ("-ccbin", "clang-14").
	Args []string
	// Err says why the compiler cannot be used: not found, or found and
	// failed to compile a trivial kernel (with the compiler's message).
	// It is nil when the compiler works.
	Err error
}

// Works reports whether the compiler compiled the trial kernel.
func (c Compiler) Works() bool { return c.Path != "" && c.Err == nil }

// Describe names the compiler, its release and path, and the host
// compiler it runs with: "nvcc 11.8 (/usr/bin/nvcc, -ccbin clang-14)".
func (c Compiler) Describe() string {
	s := c.Name
	if c.Version != "" {
		s += " " + c.Version
	}
	if c.Path == "" {
		return s
	}
	in := c.Path
	if len(c.Args) > 0 {
		in += ", " + strings.Join(c.Args, " ")
	}
	return s + " (" + in + ")"
}

// String is one line for `pathnotes info` and %gpu: the compiler and
// whether it works, or why not.
func (c Compiler) String() string {
	switch {
	case c.Path == "" && c.Err != nil:
		return c.Err.Error()
	case c.Err != nil:
		return c.Describe() + ": installed but cannot compile: " + c.Err.Error()
	default:
		return c.Describe() + ": compiles"
	}
}

// probeTimeout bounds one trial compile; nvcc takes about a second.
const probeTimeout = 2 * time.Minute

var (
	mu    sync.Mutex
	found = map[string]Compiler{}
)

// cached returns the compiler for key, running find once per key.
func cached(key string, find func() Compiler) Compiler {
	mu.Lock()
	defer mu.Unlock()
	if c, ok := found[key]; ok {
		return c
	}
	c := find()
	found[key] = c
	return c
}

// stamp identifies the executable at path: its size and time, so that a
// replaced binary is tried again.
func stamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return path
	}
	return fmt.Sprintf("%s|%d|%d", path, fi.Size(), fi.ModTime().UnixNano())
}

// NVCC finds nvcc on PATH and tries it on a trivial kernel. Where it fails
// and names a host compiler it would accept, it is tried with that one.
func NVCC() Compiler {
	path, err := exec.LookPath("nvcc")
	if err != nil {
		return Compiler{Name: "nvcc", Err: errors.New("nvcc: not found on PATH")}
	}
	return cached("nvcc|"+stamp(path)+"|"+os.Getenv("PATH"), func() Compiler { return tryNVCC(path) })
}

// nvccRelease matches nvcc --version's "release 11.8".
var nvccRelease = regexp.MustCompile(`release (\d+\.\d+)`)

// ccbinHint matches the host compiler that nvcc's error proposes:
// "Use 'nvcc -ccbin clang-14' to use that instead."
var ccbinHint = regexp.MustCompile(`nvcc -ccbin ([^\s']+)`)

// nvccProbe is the kernel nvcc is tried on.
const nvccProbe = "__global__ void pathnotes_probe(int *a) { a[threadIdx.x] = 1; }\n"

func tryNVCC(path string) Compiler {
	c := Compiler{Name: "nvcc", Path: path}
	if out, err := exec.Command(path, "--version").Output(); err == nil {
		if m := nvccRelease.FindSubmatch(out); m != nil {
			c.Version = string(m[1])
		}
	}
	log, err := probe(path, nil, "cu", nvccProbe, func(src, out, arch string) []string {
		return []string{"-ptx", "-arch=" + arch, "-o", out, src}
	})
	if err == nil {
		return c
	}
	m := ccbinHint.FindStringSubmatch(log)
	if m == nil {
		c.Err = fmt.Errorf("%s%s", firstLines(log, err), hostCompilerAdvice(c.Version))
		return c
	}
	args := []string{"-ccbin", m[1]}
	log2, err2 := probe(path, args, "cu", nvccProbe, func(src, out, arch string) []string {
		return []string{"-ptx", "-arch=" + arch, "-o", out, src}
	})
	if err2 != nil {
		c.Err = fmt.Errorf("%s; with -ccbin %s: %s%s", firstLines(log, err), m[1], firstLines(log2, err2), hostCompilerAdvice(c.Version))
		return c
	}
	c.Args = args
	return c
}

// hostCompilerAdvice says what makes nvcc work where it found no host
// compiler that its release accepts.
func hostCompilerAdvice(version string) string {
	if version == "" {
		return ""
	}
	return fmt.Sprintf(" (nvcc %s needs a host compiler that its release supports, for example an older g++ such as Debian's g++-11, on PATH or given with -ccbin)", version)
}

// Clang finds clang (PATHNOTES_CLANG, else PATH, else Homebrew's llvm) and
// tries its CUDA front end and NVPTX back end on a trivial kernel, without
// any CUDA headers.
func Clang() Compiler {
	env := strings.TrimSpace(os.Getenv(EnvClang))
	path, err := clangPath(env)
	if err != nil {
		return Compiler{Name: "clang", Err: err}
	}
	return cached("clang|"+stamp(path), func() Compiler { return tryClang(path) })
}

// clangDirs are where Homebrew keeps its llvm, which it leaves off PATH.
var clangDirs = []string{"/opt/homebrew/opt/llvm/bin", "/usr/local/opt/llvm/bin"}

// clangPath finds the clang binary: env (PATHNOTES_CLANG) when set, else
// clang, clang-20 ... clang-14 on PATH, else Homebrew's.
func clangPath(env string) (string, error) {
	if env != "" {
		path, err := exec.LookPath(env)
		if err != nil {
			return "", fmt.Errorf("clang: %s=%s names no executable file", EnvClang, env)
		}
		return path, nil
	}
	names := []string{"clang"}
	for v := 20; v >= 14; v-- {
		names = append(names, "clang-"+strconv.Itoa(v))
	}
	for _, n := range names {
		if path, err := exec.LookPath(n); err == nil {
			return path, nil
		}
	}
	for _, dir := range clangDirs {
		if path := filepath.Join(dir, "clang"); isExecutable(path) {
			return path, nil
		}
	}
	return "", errors.New("clang: not found on PATH")
}

// isExecutable reports whether path is an executable file.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// clangVersion matches clang --version's "clang version 14.0.6".
var clangVersion = regexp.MustCompile(`clang version (\d+\.\d+(?:\.\d+)?)`)

// clangProbe is the kernel clang is tried on: no headers, so the
// qualifier is spelled as an attribute.
const clangProbe = `extern "C" __attribute__((global)) void pathnotes_probe(int *a) { *a = 1; }` + "\n"

func tryClang(path string) Compiler {
	c := Compiler{Name: "clang", Path: path}
	if out, err := exec.Command(path, "--version").Output(); err == nil {
		if m := clangVersion.FindSubmatch(out); m != nil {
			c.Version = string(m[1])
		}
	}
	log, err := probe(path, nil, "cu", clangProbe, func(src, out, arch string) []string {
		dir := filepath.Dir(src)
		return []string{"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=" + strings.Replace(arch, "compute_", "sm_", 1),
			"--cuda-path=" + dir, "-nocudainc", "-nocudalib", "-Wno-unknown-cuda-version", "-S", "-o", out, src}
	})
	if err != nil {
		c.Err = errors.New(firstLines(log, err))
	}
	return c
}

// probe compiles source with the executable at path: args, then what
// argv returns for the source file, the output file and the architecture.
// compute_52 is tried first, then compute_75 where the compiler no longer
// builds the older one (CUDA 13). It succeeds when the compiler exits 0
// and writes PTX with an entry; otherwise it returns the compiler's output.
func probe(path string, args []string, ext, source string, argv func(src, out, arch string) []string) (string, error) {
	dir, err := os.MkdirTemp("", "pathnotes-probe-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "probe."+ext)
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "probe.ptx")
	var log string
	for _, arch := range []string{"compute_52", "compute_75"} {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		cmd := exec.CommandContext(ctx, path, append(append([]string{}, args...), argv(src, out, arch)...)...)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		err = cmd.Run()
		cancel()
		log = strings.TrimSpace(strings.ReplaceAll(buf.String(), dir+string(filepath.Separator), ""))
		if err == nil {
			ptx, rerr := os.ReadFile(out)
			if rerr != nil || !bytes.Contains(ptx, []byte(".entry")) {
				return log, errors.New("it exited 0 but wrote no PTX kernel")
			}
			return log, nil
		}
		if !strings.Contains(strings.ToLower(log), "unsupported gpu architecture") {
			break
		}
	}
	return log, err
}

// firstLines gives a compiler's failure in a line or two: its output's
// first two lines, joined, or the exit error when it printed nothing.
func firstLines(log string, err error) string {
	if log == "" {
		return err.Error()
	}
	lines := strings.Split(log, "\n")
	if len(lines) > 2 {
		lines = lines[:2]
	}
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, " ")
}
