package rtc

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/pathnotes/pathnotes/internal/toolchain"
)

// The header clang compiles every cell with, and the stand-ins of the
// toolkit headers it accepts (see clanginc/pathnotes_cuda.h).
//
//go:embed clanginc/*.h
var clangHeaders embed.FS

// EnvClang is the environment variable that names the clang binary that
// compiles %%cuda cells; unset, clang is looked up on PATH (then as
// clang-20 ... clang-14, and in Homebrew's keg-only llvm directories).
const EnvClang = toolchain.EnvClang

// clangCompiler compiles CUDA C to PTX with clang's CUDA front end and
// NVPTX back end, without a CUDA toolkit: no CUDA headers, no libdevice.
type clangCompiler struct{}

func (clangCompiler) available() string { return unusable(toolchain.Clang()) }

func (clangCompiler) describe() string { return toolchain.Clang().Describe() }

// clangArch turns a virtual architecture (compute_52) into clang's GPU
// name (sm_52), and picks the PTX ISA version: 6.4 (CUDA 10.1, which has
// the .sync warp instructions) unless the card needs a later one.
func clangArch(arch string) (gpu, ptx string, err error) {
	num, ok := strings.CutPrefix(arch, "compute_")
	if !ok {
		num, ok = strings.CutPrefix(arch, "sm_")
	}
	n, err := strconv.Atoi(strings.TrimRight(num, "a"))
	if !ok || err != nil || n < 30 {
		return "", "", fmt.Errorf("clang: architecture %q is not compute_XX or sm_XX with XX at least 30", arch)
	}
	ptx = "ptx64"
	for _, v := range []struct {
		sm  int
		ptx string
	}{{90, "ptx78"}, {89, "ptx78"}, {87, "ptx74"}, {86, "ptx71"}, {80, "ptx70"}} {
		if n >= v.sm {
			ptx = v.ptx
			break
		}
	}
	return "sm_" + num, ptx, nil
}

func (clangCompiler) compile(ctx context.Context, name, source string, opts CompileOptions) (string, string, error) {
	tool := toolchain.Clang()
	gpuArch, ptxFeature, err := clangArch(opts.Arch)
	if err != nil {
		return "", "", err
	}
	tmp, err := os.MkdirTemp("", "pathnotes-clang-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	inc := filepath.Join(tmp, "include")
	if err := writeClangHeaders(inc); err != nil {
		return "", "", err
	}
	noCUDA := filepath.Join(tmp, "no-cuda") // an empty "toolkit", so that clang does not look for one
	if err := os.Mkdir(noCUDA, 0o755); err != nil {
		return "", "", err
	}
	src := filepath.Join(tmp, "cell.cu")
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		return "", "", err
	}
	out := filepath.Join(tmp, "cell.ptx")
	args := []string{"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=" + gpuArch, "--cuda-path=" + noCUDA,
		"-nocudainc", "-nocudalib", "-nostdlibinc", "-isystem", inc, "-include", "pathnotes_cuda.h",
		"-Xclang", "-target-feature", "-Xclang", "+" + ptxFeature,
		"-S", "-O2", "-mllvm", "-inline-threshold=100000", "-fno-show-column", "-fno-color-diagnostics", "-Wno-unknown-cuda-version"}
	args = append(args, clangFlags(opts.Flags)...)
	args = append(args, "-o", out, src)
	cmd := exec.CommandContext(ctx, tool.Path, append(append([]string{}, tool.Args...), args...)...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", "", fmt.Errorf("interrupted: %w", ctx.Err())
		}
		text := strings.NewReplacer(src, "cell.cu", inc+string(filepath.Separator), "").Replace(log.String())
		text = strings.TrimSpace(text)
		if text == "" {
			return "", "", fmt.Errorf("clang %s: %w", strings.Join(args, " "), err)
		}
		return "", text + missingHeaderNote(text), err
	}
	ptx, err := os.ReadFile(out)
	return string(ptx), "", err
}

// clangFlags translates the nvcc flags that cells written for nvcc use
// and clang spells otherwise: -use_fast_math is -ffast-math, -lineinfo
// (the .loc lines that name the source line of each instruction) is
// -gline-tables-only, and --expt-relaxed-constexpr is what clang does
// anyway. Others pass as they
// are, and clang rejects those it does not know.
func clangFlags(flags []string) []string {
	var out []string
	for _, f := range flags {
		switch strings.TrimLeft(f, "-") {
		case "use_fast_math":
			out = append(out, "-ffast-math")
		case "lineinfo", "generate-line-info":
			out = append(out, "-gline-tables-only")
		case "expt-relaxed-constexpr":
		default:
			out = append(out, f)
		}
	}
	return out
}

// writeClangHeaders writes the embedded headers into dir.
func writeClangHeaders(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := clangHeaders.ReadDir("clanginc")
	if err != nil {
		return err
	}
	for _, e := range entries {
		b, err := clangHeaders.ReadFile("clanginc/" + e.Name())
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// missingHeader matches clang's "fatal error: 'cooperative_groups.h' file
// not found".
var missingHeader = regexp.MustCompile(`fatal error: '([^']+)' file not found`)

// missingHeaderNote explains a header that clang without the CUDA toolkit
// lacks, and what to use instead; "" when the log names none.
func missingHeaderNote(log string) string {
	m := missingHeader.FindStringSubmatch(log)
	if m == nil {
		return ""
	}
	return fmt.Sprintf("\nclang without the CUDA toolkit has no <%s>. The header pathnotes gives clang provides what lab kernels use: "+
		"threadIdx, blockIdx, blockDim, gridDim, warpSize, the __global__/__device__/__shared__/__constant__ qualifiers, "+
		"__launch_bounds__, __syncthreads, __syncwarp, __threadfence, atomicAdd/Sub/Min/Max/Exch/CAS/And/Or/Xor/Inc/Dec, "+
		"__shfl_*_sync, __all_sync, __any_sync, __ballot_sync, printf, min, max, abs, common float math, "+
		"and the limits of <limits.h>, <stdint.h> and <float.h>; <stdio.h>, <math.h>, <cuda.h> and <cuda_runtime.h> are accepted and add nothing. "+
		"Remove the include and use those, or install the CUDA toolkit and compile with --compiler=nvcc", m[1])
}
