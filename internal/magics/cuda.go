package magics

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pathnotes/pathnotes/gpu/cells"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/kernel/session"
)

// registerCellMagics gives session s the %%cuda and %%ptx cell magics:
// a cell of CUDA C or PTX, loaded into k, whose kernels a Go cell then
// launches with cells.Launch, cells.GetKernel and cells.GetVar; and
// %%profile, which profiles the kernels a cell launches (profile.go).
func registerCellMagics(s *session.Session, k *cells.Session) error {
	for _, m := range []session.Magic{{
		Name:  "cuda",
		Cell:  true,
		Usage: cudaUsage,
		Help: "compile the cell's CUDA C (NVRTC, nvcc or clang, cached in .pathnotes-ptx/) and load it on the GPU; " +
			"its kernels are then cells.Launch(\"name\", gpu.Dim(blocks), gpu.Dim(threads), args...), its variables cells.GetVar(\"name\")",
		Run: func(ctx context.Context, _ *session.Session, args, body string, _ session.Output) (*session.Bundle, error) {
			return runCUDAMagic(ctx, k, args, body)
		},
	}, {
		Name:  "ptx",
		Cell:  true,
		Usage: "%%ptx [--name MODULE]",
		Help:  "load the cell's PTX text on the GPU (or the emulator; no CUDA toolkit needed) and register its kernels and variables, as %%cuda does",
		Run: func(_ context.Context, _ *session.Session, args, body string, _ session.Output) (*session.Bundle, error) {
			return runPTXMagic(k, args, body)
		},
	}, profileMagic} {
		if err := s.RegisterMagic(m); err != nil {
			return err
		}
	}
	return nil
}

// cudaUsage is the %%cuda line's syntax.
const cudaUsage = "%%cuda [--name MODULE] [--arch compute_XX] [--compiler nvrtc|nvcc|clang] [-- COMPILER FLAGS]"

// cellArgs are the options of a %%cuda or %%ptx line.
type cellArgs struct {
	name     string
	arch     string
	compiler string
	flags    []string
}

// parseCellArgs reads "--name M --arch A --compiler C -- flags..."; cuda
// says whether --arch, --compiler and extra flags are allowed.
func parseCellArgs(magic, args string, cuda bool) (cellArgs, error) {
	var a cellArgs
	f := strings.Fields(args)
	for i := 0; i < len(f); i++ {
		opt := f[i]
		value := func() (string, error) {
			if k, v, ok := strings.Cut(opt, "="); ok {
				opt = k
				return v, nil
			}
			if i+1 >= len(f) {
				return "", fmt.Errorf("%%%%%s: %s needs a value", magic, opt)
			}
			i++
			return f[i], nil
		}
		switch name, _, _ := strings.Cut(opt, "="); {
		case name == "--name":
			v, err := value()
			if err != nil {
				return a, err
			}
			a.name = v
		case name == "--arch" && cuda:
			v, err := value()
			if err != nil {
				return a, err
			}
			a.arch = v
		case name == "--compiler" && cuda:
			v, err := value()
			if err != nil {
				return a, err
			}
			if !slices.Contains(cells.CompilerNames, v) {
				return a, fmt.Errorf("%%%%cuda: unknown compiler %q (use %s)", v, strings.Join(cells.CompilerNames, ", "))
			}
			a.compiler = v
		case opt == "--" && cuda:
			a.flags = f[i+1:]
			return a, nil
		default:
			usage := "%%ptx [--name MODULE]"
			if cuda {
				usage = cudaUsage
			}
			return a, fmt.Errorf("%%%%%s: unknown argument %q (usage: %s)", magic, opt, usage)
		}
	}
	return a, nil
}

// runCUDAMagic compiles a %%cuda cell and loads it into k; compiler
// errors name the cell's lines.
func runCUDAMagic(ctx context.Context, k *cells.Session, args, body string) (*session.Bundle, error) {
	a, err := parseCellArgs("cuda", args, true)
	if err != nil {
		return nil, err
	}
	m, comp, err := k.LoadCUDA(ctx, a.name, cudaCellSource(body), cells.CompileOptions{Arch: a.arch, Flags: a.flags, Compiler: a.compiler})
	if err != nil {
		return nil, err
	}
	how := "compiled by " + comp.Compiler
	if comp.Compiler == "cache" {
		how = "PTX from the cache"
	}
	text := moduleSummary(m, how)
	if comp.Note != "" {
		text += "\n" + comp.Note
	}
	return session.TextBundle(text), nil
}

// cudaCellSource is the source compiled for a %%cuda cell's body, under
// the file name "cell": the session blanks the magic's line, so the body's
// lines are the cell's.
func cudaCellSource(body string) string { return "#line 1 \"cell\"\n" + body }

// runPTXMagic loads a %%ptx cell into k.
func runPTXMagic(k *cells.Session, args, body string) (*session.Bundle, error) {
	a, err := parseCellArgs("ptx", args, false)
	if err != nil {
		return nil, err
	}
	m, err := k.Load(a.name, body)
	if err != nil {
		return nil, err
	}
	return session.TextBundle(moduleSummary(m, "PTX cell")), nil
}

// moduleSummary is the one line a %%cuda or %%ptx cell prints: the module,
// its kernels with their parameters, its variables, where the PTX came
// from and its size.
func moduleSummary(m *cells.Module, origin string) string {
	var ks []string
	for _, name := range m.Kernels() {
		if k, err := m.Kernel(name); err == nil {
			ks = append(ks, k.Signature())
		}
	}
	line := fmt.Sprintf("module %s on %s: kernels %s", m.Name(), m.Device().Info().Name, strings.Join(ks, ", "))
	if len(ks) == 0 {
		line = fmt.Sprintf("module %s on %s: no kernels", m.Name(), m.Device().Info().Name)
	}
	if vs := m.Vars(); len(vs) > 0 {
		line += "; variables " + strings.Join(vs, ", ")
	}
	return line + fmt.Sprintf("; %s, PTX %s", origin, graph.FormatBytes(uint64(len(m.PTX()))))
}
