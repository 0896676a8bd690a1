// Package magics joins cell sessions to the gpu package: the %gpu line
// magic and the %%cuda, %%ptx and %%profile cell magics, which Register
// adds to a session, and the device-side printf of the kernels those cells
// load, which goes to the cells' output.
package magics

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/kernel/session"
)

// Register gives session s the %gpu line magic and the %%cuda, %%ptx and
// %%profile cell magics. `%gpu` prints what `pathnotes info` prints about the GPU
// driver and devices, then the modules of %%cuda and %%ptx cells and the
// CUDA compilers; `%gpu variants` lists the GPU variants with their launch
// shapes and sources. It also makes the running cell's context that of
// gpu.Launch and the other cell launches (gpu.SetLaunchContext), so that
// interrupting a cell stops a kernel running on the emulator.
func Register(s *session.Session) error {
	if err := registerCellMagics(s); err != nil {
		return err
	}
	gpu.SetLaunchContext(s.CellContext)
	return s.RegisterMagic(session.Magic{
		Name:  "gpu",
		Usage: "%gpu [variants]",
		Help:  "describe the GPU driver and devices (as `pathnotes info` does), the modules of %%cuda/%%ptx cells and the CUDA compilers, or list the GPU variants",
		Run: func(_ context.Context, _ *session.Session, args, _ string, _ session.Output) (*session.Bundle, error) {
			switch strings.TrimSpace(args) {
			case "":
				text := gpu.Describe() + "\n" + gpu.DescribeCells() + "\n" + Compilers()
				return session.TextBundle(text), nil
			case "variants":
				return session.TextBundle(variantTable()), nil
			}
			return nil, fmt.Errorf("%%gpu: unknown argument %q (use %%gpu or %%gpu variants)", args)
		},
	})
}

// Compilers is the line that names the CUDA compilers of %%cuda cells and
// the PTX cache, as %gpu and `pathnotes info` print it.
func Compilers() string {
	return "cuda compilers: " + strings.Join(gpu.Compilers(), "; ")
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
