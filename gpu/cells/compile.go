package cells

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/pathnotes/pathnotes/gpu/internal/rtc"
	"github.com/pathnotes/pathnotes/gpu/ptxemu"
)

// CUDA C cells: package rtc compiles them (NVRTC, else nvcc, else clang,
// with a PTX cache on disk) and needs no device; Session.LoadCUDA loads
// the PTX.

// CompileOptions configure CompileCUDA: Arch is the virtual architecture
// the PTX targets ("" means compute_52, which the emulator runs), Flags
// are passed to the compiler as they are (e.g. "-DN=256"), and Compiler
// picks "nvrtc", "nvcc" or "clang" ("" takes the first one found, in that
// order). clang needs no CUDA toolkit: it compiles with a header of
// pathnotes' own that covers what lab kernels use (docs/cell-kernels.md
// lists it and its limits).
type CompileOptions = rtc.CompileOptions

// CompilerNames are the values of CompileOptions.Compiler, in the order
// an unset Compiler tries them.
var CompilerNames = rtc.CompilerNames

// Compilation is what Session.LoadCUDA's compiler did: the PTX, which compiler made
// it ("cache" for a cache hit), where the cache is, and a note for the
// user or "".
type Compilation = rtc.Compilation

// CompileError is CUDA C that failed to compile, with the compiler's log;
// the log's file positions are rewritten to the cell's lines, as
// "cell:3: error: identifier "x" is undefined".
type CompileError = rtc.CompileError

// EnvPTXCache is the environment variable that sets the PTX cache's
// directory; "off" disables the cache. Unset, it is ".pathnotes-ptx" in
// the working directory (the notebook's directory under Jupyter and
// `pathnotes run`).
const EnvPTXCache = rtc.EnvPTXCache

// CompileCUDA compiles CUDA C source (a %%cuda cell) to PTX. A PTX of
// the same source, arch, flags and compiler in the PTX cache (see
// EnvPTXCache) is used as it is; otherwise it tries NVRTC first where the
// cuda build finds libnvrtc, then `nvcc -ptx` from PATH, then clang from
// PATH (opts.Compiler picks one), and stores the PTX in the cache.
// When the arch is left to its default (compute_52) and the compiler no
// longer builds it (CUDA 13), the PTX is made for compute_75 instead.
// A source without a #line directive is numbered from line 1 of "cell".
func CompileCUDA(ctx context.Context, name, source string, opts CompileOptions) (ptx string, err error) {
	return rtc.CompileCUDA(ctx, name, source, opts)
}

// Compilers describes the CUDA compilers this process can use, and the
// PTX cache, one line each (for %gpu and `pathnotes info`).
func Compilers() []string { return rtc.Compilers() }

// PTXCacheFile returns the file in which the PTX cache keeps the PTX of
// source compiled with opts ("" when the cache is off), for a notebook's
// author who wants to check that the cache holds a cell's PTX.
func PTXCacheFile(source string, opts CompileOptions) (string, error) {
	return rtc.PTXCacheFile(source, opts)
}

// LoadCUDA compiles CUDA C (a %%cuda cell) as CompileCUDA does, loads the
// PTX on the default device as module name and registers it for
// GetKernel, GetVar and Launch, as Load does. The element types of its
// __device__ and __constant__ variables come from the source ("int
// data[4]" is Int32 although PTX declares a byte array). An empty name
// means the first kernel's name.
func (s *Session) LoadCUDA(ctx context.Context, name, source string, opts CompileOptions) (*Module, Compilation, error) {
	comp, err := rtc.CompileCUDADetail(ctx, name, source, opts)
	if err != nil {
		return nil, comp, err
	}
	if name == "" {
		if name, err = firstKernel(comp.PTX); err != nil {
			return nil, comp, err
		}
	}
	m, err := s.load(name, comp.PTX, comp.Compiler, sourceVarTypes(source))
	return m, comp, err
}

// firstKernel names a module after its first kernel (demangled), for cells
// that do not name theirs.
func firstKernel(ptx string) (string, error) {
	decls, err := ptxemu.ParseDecls("", ptx)
	if err != nil {
		return "", err
	}
	if len(decls.Entries) == 0 {
		return "", fmt.Errorf("gpu: the cell defines no __global__ kernel (name the module with --name to load variables alone)")
	}
	return demangle(decls.Entries[0].Name), nil
}

// sourceVar matches a __device__ or __constant__ variable of one of the
// Buffer element types.
var sourceVar = regexp.MustCompile(`(?m)__(?:device|constant)__\s+(?:(?:const|volatile|static)\s+)*` +
	`(unsigned\s+int|unsigned|signed\s+int|int|int32_t|uint32_t|float|double)\s+(\w+)\s*[\[=;]`)

// sourceVarTypes returns the element types the source declares its module
// variables with.
func sourceVarTypes(source string) map[string]ElemType {
	types := map[string]ElemType{}
	for _, m := range sourceVar.FindAllStringSubmatch(source, -1) {
		switch strings.Join(strings.Fields(m[1]), " ") {
		case "int", "signed int", "int32_t":
			types[m[2]] = Int32
		case "unsigned", "unsigned int", "uint32_t":
			types[m[2]] = Uint32
		case "float":
			types[m[2]] = Float32
		case "double":
			types[m[2]] = Float64
		}
	}
	return types
}
