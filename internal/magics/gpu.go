package magics

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/kernel/session"
)

// registerGPUMagics gives the kernel the %gpu line magic: `%gpu` prints
// what `pathnotes info` prints about the GPU driver and devices, then the
// modules of %%cuda and %%ptx cells and the CUDA compilers; `%gpu
// variants` lists the GPU variants with their launch shapes and sources.
// It registers the %%cuda and %%ptx cell magics too.
func registerGPUMagics(s *session.Session) error {
	if err := registerCUDAMagics(s); err != nil {
		return err
	}
	return s.RegisterMagic(session.Magic{
		Name:  "gpu",
		Usage: "%gpu [variants]",
		Help:  "describe the GPU driver and devices (as `pathnotes info` does), the modules of %%cuda/%%ptx cells and the CUDA compilers, or list the GPU variants",
		Run: func(_ context.Context, _ *session.Session, args, _ string, _ session.Output) (*session.Bundle, error) {
			switch strings.TrimSpace(args) {
			case "":
				text := gpu.Describe() + "\n" + gpu.DescribeCells() + "\ncuda compilers: " + strings.Join(gpu.Compilers(), "; ")
				return session.TextBundle(text), nil
			case "variants":
				return session.TextBundle(variantTable()), nil
			}
			return nil, fmt.Errorf("%%gpu: unknown argument %q (use %%gpu or %%gpu variants)", args)
		},
	})
}

// The CUDA compilers of %%cuda cells and the PTX cache, in `pathnotes
// info` after the GPU driver's lines (gpu_cmd.go adds those first).
func init() {
	infoLines = append(infoLines, func() string {
		return "cuda compilers: " + strings.Join(gpu.Compilers(), "; ")
	})
}

// variantTable lists the GPU variants, one per line.
func variantTable() string {
	var sb strings.Builder
	w := tabwriter.NewWriter(&sb, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "variant\talgorithm\tproblem\tlaunch\tsource")
	for _, v := range gpu.Variants() {
		problem := "single source"
		if v.AllPairs {
			problem = "all pairs"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", v.Name, v.Algorithm, problem, v.Launch, v.Source)
	}
	w.Flush()
	return strings.TrimRight(sb.String(), "\n")
}
