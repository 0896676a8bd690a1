// Package magics joins cell sessions to the gpu packages: the %gpu line
// magic and the %%cuda, %%ptx and %%profile cell magics, which Register
// adds to a session, with the session's kernels (a cells.Session) whose
// launches take the running cell's context and whose device-side printf
// goes to the cells' output.
package magics

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
	"github.com/pathnotes/pathnotes/kernel/session"
)

// Register gives session s the %gpu line magic and the %%cuda, %%ptx and
// %%profile cell magics, which load their modules into k, the kernels of
// the session (the cells reach k as package cells: the program binds its
// methods there). `%gpu` prints what `pathnotes info` prints about the GPU
// driver and devices, then k's modules and the CUDA compilers; `%gpu
// variants` lists the GPU variants with their launch shapes and sources.
// It also makes the running cell's context that of k's launches, so that
// interrupting a cell stops a kernel running on the emulator, and sends
// their device-side printf to the cells' output: the kernels of a %%cuda
// or %%ptx cell are launched by later Go cells of the same session.
func Register(s *session.Session, k *cells.Session) error {
	if err := registerCellMagics(s, k); err != nil {
		return err
	}
	k.Context = s.CellContext
	k.Printf = s.Stdout()
	return s.RegisterMagic(session.Magic{
		Name:  "gpu",
		Usage: "%gpu [variants]",
		Help:  "describe the GPU driver and devices (as `pathnotes info` does), the modules of %%cuda/%%ptx cells and the CUDA compilers, or list the GPU variants",
		Run: func(_ context.Context, _ *session.Session, args, _ string, _ session.Output) (*session.Bundle, error) {
			switch strings.TrimSpace(args) {
			case "":
				text := gpu.Describe() + "\n" + k.Describe() + "\n" + Compilers()
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
	return "cuda compilers: " + strings.Join(cells.Compilers(), "; ")
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
