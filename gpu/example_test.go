package gpu_test

import (
	"context"
	"fmt"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/graph"
)

// AllPairs runs a GPU variant by name. Here it runs on the PTX emulator,
// which interprets the kernels on the CPU, so the example needs no GPU; on
// a machine with one, leave Options.Device nil (or set PATHNOTES_GPU=emu
// to pick the emulator for the whole process).
func ExampleAllPairs() {
	dev, err := gpu.Emulator()
	if err != nil {
		panic(err)
	}
	g, err := graph.Example("karaula-fig3.1")
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	r, err := gpu.AllPairs(ctx, gpu.VariantFWBlocked, g, gpu.Options{Device: dev, Pred: true})
	if err != nil {
		panic(err)
	}
	ref, _ := cpu.FloydWarshall(ctx, g, cpu.FWOptions{Pred: true})
	p, _ := r.Path(0, 4)
	fmt.Println(r.Solver, "on", dev.Driver())
	fmt.Println("row a:", r.Dist[:5], "same as the CPU:", r.SameDistances(ref))
	fmt.Println(p)
	// Output:
	// fw-blocked on emu
	// row a: [0 5 6 2 3] same as the CPU: true
	// a -> d -> e (weight 3)
}

// SingleSource runs a single-source variant from one vertex.
func ExampleSingleSource() {
	dev, err := gpu.Emulator()
	if err != nil {
		panic(err)
	}
	g, err := graph.Example("musap-sabcd")
	if err != nil {
		panic(err)
	}
	r, err := gpu.SingleSource(context.Background(), gpu.VariantDijkstraMartin, g, 0, gpu.Options{Device: dev})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Solver, r.Dist)
	// Output:
	// dijkstra-martin [0 2 5 6 7]
}
