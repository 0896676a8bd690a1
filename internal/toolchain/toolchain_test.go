package toolchain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTool writes an executable shell script (builtins only: PATH holds
// nothing else) named name into a fresh directory that becomes PATH.
// The script sees its arguments; OUT is the file after -o.
func fakeTool(t *testing.T, name, body string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nout=\"\"; prev=\"\"\nfor a in \"$@\"; do\n  case \"$prev\" in -o) out=$a;; esac\n  prev=$a\ndone\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Setenv(EnvClang, "")
	return filepath.Join(dir, name)
}

// writePTX is a script line that writes a PTX kernel to the -o file.
const writePTX = `printf '.version 7.8\n.target sm_52\n.visible .entry pathnotes_probe()\n{\n\tret;\n}\n' >"$out"`

func TestNVCCStates(t *testing.T) {
	for _, c := range []struct {
		name, body string
		works      bool
		args       string // the Args kept, space-joined
		want       string // in String()
	}{
		{"works", `case "$1" in --version) echo "Cuda compilation tools, release 11.8, V11.8.89"; exit 0;; esac` + "\n" + writePTX,
			true, "", "nvcc 11.8 ("},
		{"exits 0 and writes nothing", `exit 0`, false, "", "installed but cannot compile: it exited 0 but wrote no PTX kernel"},
		// CUDA 13 builds nothing older than compute_75.
		{"rejects compute_52", `case "$*" in *compute_52*) echo "nvcc fatal   : Unsupported gpu architecture 'compute_52'" >&2; exit 1;; esac` + "\n" + writePTX,
			true, "", ": compiles"},
		{"needs the host compiler it names", `case "$*" in *"-ccbin clang-14"*) ;; *) echo "ERROR: No supported gcc/g++ host compiler found, but clang-14 is available." >&2; echo "       Use 'nvcc -ccbin clang-14' to use that instead." >&2; exit 1;; esac` + "\n" + writePTX,
			true, "-ccbin clang-14", "-ccbin clang-14): compiles"},
		{"fails, naming nothing", `echo "nvcc fatal   : something else" >&2; exit 1`, false, "", "installed but cannot compile: nvcc fatal   : something else"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := fakeTool(t, "nvcc", c.body)
			got := NVCC()
			if got.Path != path || got.Works() != c.works || strings.Join(got.Args, " ") != c.args || !strings.Contains(got.String(), c.want) {
				t.Errorf("NVCC() = %+v, %q; want works %v, args %q, %q in it", got, got.String(), c.works, c.args, c.want)
			}
		})
	}
	t.Setenv("PATH", t.TempDir())
	if got := NVCC(); got.Works() || got.String() != "nvcc: not found on PATH" {
		t.Errorf("no nvcc: %q", got.String())
	}
}

func TestClangStates(t *testing.T) {
	path := fakeTool(t, "clang-15", `case "$1" in --version) echo "clang version 15.0.7"; exit 0;; esac`+"\n"+writePTX)
	if got := Clang(); !got.Works() || got.Path != path || got.Describe() != "clang 15.0.7 ("+path+")" {
		t.Errorf("clang-15 on PATH: %+v", got)
	}
	// A clang without the NVPTX back end.
	fakeTool(t, "clang", `echo "error: unable to create target: 'No available targets are compatible with triple \"nvptx64-nvidia-cuda\"'" >&2; exit 1`)
	if got := Clang(); got.Works() || !strings.Contains(got.String(), "installed but cannot compile: error: unable to create target") {
		t.Errorf("clang without NVPTX: %q", got.String())
	}
	t.Setenv(EnvClang, path)
	if got := Clang(); !got.Works() || got.Path != path {
		t.Errorf("PATHNOTES_CLANG=%s: %q", path, got.String())
	}
	t.Setenv(EnvClang, "/no/such/clang")
	if got := Clang(); got.Works() || got.String() != "clang: PATHNOTES_CLANG=/no/such/clang names no executable file" {
		t.Errorf("PATHNOTES_CLANG naming a missing file: %q", got.String())
	}
}
