package gpu

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// LoadCellCUDA compiles CUDA C (a %%cuda cell) with CompileCUDADetail,
// loads the PTX on the default device as module name and registers it for
// GetKernel, GetVar and Launch, as LoadCellPTX does. The element types of
// its __device__ and __constant__ variables come from the source ("int
// data[4]" is Int32 although PTX declares a byte array). An empty name
// means the first kernel's name.
func LoadCellCUDA(ctx context.Context, name, source string, opts CompileOptions) (*Module, Compilation, error) {
	comp, err := CompileCUDADetail(ctx, name, source, opts)
	if err != nil {
		return nil, comp, err
	}
	if name == "" {
		if name, err = firstKernel(comp.PTX); err != nil {
			return nil, comp, err
		}
	}
	m, err := loadCell(name, comp.PTX, comp.Compiler, sourceVarTypes(source))
	return m, comp, err
}

// firstKernel names a module after its first kernel (demangled), for cells
// that do not name theirs.
func firstKernel(ptx string) (string, error) {
	decls, err := parsePTXDecls(ptx)
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
