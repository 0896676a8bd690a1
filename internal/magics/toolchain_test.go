package magics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/gpu/cells"
	"github.com/pathnotes/pathnotes/internal/toolchain"
)

// fakeNVCC is a stand-in for nvcc, in shell builtins only (PATH holds
// nothing else): --version prints release 11.8; a compile writes the PTX
// file named by PTX_FILE below to the -o argument, or fails as MODE says.
// Modes: "works"; "needs-host", which fails as Debian's nvcc 11.8 does
// beside gcc 12 and clang 14 unless -ccbin names a compiler on PATH;
// "no-host", which fails as it does with no clang either; "broken", which
// fails even with the host compiler it proposes.
const fakeNVCC = `#!/bin/sh
MODE=%MODE%
out=""; host=""; prev=""
for a in "$@"; do
  case "$a" in --version) echo "Cuda compilation tools, release 11.8, V11.8.89"; exit 0;; esac
  case "$prev" in -o) out=$a;; -ccbin) host=$a;; esac
  prev=$a
done
case "$MODE" in
needs-host)
  if [ -z "$host" ] || ! command -v "$host" >/dev/null; then
    echo "ERROR: No supported gcc/g++ host compiler found, but clang-14 is available." >&2
    echo "       Use 'nvcc -ccbin clang-14' to use that instead." >&2
    exit 1
  fi;;
no-host)
  echo "ERROR: No supported gcc/g++ host compiler found." >&2; exit 1;;
broken)
  if [ -z "$host" ]; then
    echo "ERROR: No supported gcc/g++ host compiler found, but clang-14 is available." >&2
    echo "       Use 'nvcc -ccbin clang-14' to use that instead." >&2
  else
    echo "nvcc fatal   : Failed to preprocess host compiler properties." >&2
  fi
  exit 1;;
esac
while IFS= read -r line; do printf '%s\n' "$line"; done <%PTX_FILE% >"$out"
`

// fakeClang is a stand-in for clang 14 that compiles: it writes the PTX
// file to the -o argument.
const fakeClang = `#!/bin/sh
out=""; prev=""
for a in "$@"; do
  case "$a" in --version) echo "Debian clang version 14.0.6"; exit 0;; esac
  case "$prev" in -o) out=$a;; esac
  prev=$a
done
while IFS= read -r line; do printf '%s\n' "$line"; done <%PTX_FILE% >"$out"
`

// TestCompilerStates runs a %%cuda cell, then a Go cell that launches its
// kernel, under every state of the toolchain a machine can be in, with
// fakes as the only programs on PATH: each state gives a working cell, by
// the compiler it names, or an error that says why, and %gpu says which
// compilers work and why the others do not.
func TestCompilerStates(t *testing.T) {
	if line := nvrtcLine(); strings.HasSuffix(line, ": compiles") {
		t.Skip("NVRTC compiles in this build (" + line + "): it comes first whatever PATH holds")
	}
	ptxFile := filepath.Join(t.TempDir(), "vecadd.ptx")
	if err := os.WriteFile(ptxFile, []byte(cellTestPTX), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		nvcc  string // fakeNVCC's mode, or "" for no nvcc
		clang bool   // a working clang-14 on PATH
		env   string // PATHNOTES_CLANG
		// by is what the %%cuda cell's output names, or "" when the cell fails.
		by string
		// want is in the error, or in %gpu's output when the cell works.
		want []string
	}{
		{name: "no compiler",
			want: []string{"no CUDA compiler", "nvcc: not found on PATH", "clang: not found on PATH", "Install the CUDA toolkit"}},
		{name: "only clang", clang: true, by: "compiled by clang 14.0.6",
			want: []string{"nvcc: not found on PATH", "clang 14.0.6 (", ": compiles"}},
		{name: "nvcc without a host compiler, clang present", nvcc: "needs-host", clang: true, by: "compiled by nvcc 11.8 (",
			want: []string{"-ccbin clang-14): compiles", "clang 14.0.6 ("}},
		{name: "nvcc broken even with the host compiler it names, clang present", nvcc: "broken", clang: true, by: "compiled by clang 14.0.6",
			want: []string{"nvcc 11.8 (", "installed but cannot compile: ERROR: No supported gcc/g++ host compiler found",
				"with -ccbin clang-14: nvcc fatal   : Failed to preprocess host compiler properties."}},
		{name: "nvcc without a host compiler, no clang", nvcc: "no-host",
			want: []string{"installed but cannot compile: ERROR: No supported gcc/g++ host compiler found.",
				"needs a host compiler that its release supports", "clang: not found on PATH", "Install the CUDA toolkit"}},
		{name: "nvcc with a working host compiler", nvcc: "works", by: "compiled by nvcc 11.8 (",
			want: []string{"nvcc 11.8 (", "): compiles", "clang: not found on PATH"}},
		{name: "PATHNOTES_CLANG names a missing file", env: "/no/such/clang",
			want: []string{"clang: PATHNOTES_CLANG=/no/such/clang names no executable file", "nvcc: not found on PATH"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := cellSession(t)
			bin := t.TempDir()
			fake := func(name, script string) {
				script = strings.NewReplacer("%MODE%", c.nvcc, "%PTX_FILE%", ptxFile).Replace(script)
				if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if c.nvcc != "" {
				fake("nvcc", fakeNVCC)
			}
			if c.clang {
				fake("clang-14", fakeClang)
			}
			t.Setenv("PATH", bin)
			t.Setenv(toolchain.EnvClang, c.env)
			res, _, err := run(t, s, "%%cuda\n"+vecAddCUDA)
			if c.by == "" {
				for _, w := range c.want {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Errorf("%%%%cuda: %v\nwant %q in the error", err, w)
					}
				}
				return
			}
			if err != nil || !strings.Contains(res, c.by) {
				t.Fatalf("%%%%cuda: %q, %v; want %q", res, err, c.by)
			}
			if _, printed, err := run(t, s, launchCell); err != nil || printed != "[11 22 33] <nil>\n" {
				t.Errorf("launch: %q, %v", printed, err)
			}
			res, _, err = run(t, s, "%gpu")
			for _, w := range c.want {
				if err != nil || !strings.Contains(res, w) {
					t.Errorf("%%gpu: %q, %v\nwant %q in it", res, err, w)
				}
			}
		})
	}
}

// nvrtcLine is what cells.Compilers says of NVRTC.
func nvrtcLine() string {
	for _, line := range cells.Compilers() {
		if strings.HasPrefix(line, "NVRTC") {
			return line
		}
	}
	return ""
}
