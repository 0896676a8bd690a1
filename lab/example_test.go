package lab_test

import (
	"context"
	"fmt"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/lab"
)

// hostFW is an APSPFunc that runs Floyd-Warshall on the host, copying the
// matrix off the device and back; guard false leaves out the check that
// both terms are finite, the bug the handout warns about (INF + w wraps).
func hostFW(guard bool) lab.APSPFunc {
	return func(dev *gpu.Device, d *cells.Buffer, n int) error {
		w, err := d.ToInt32s()
		if err != nil {
			return err
		}
		for k := range n {
			for i := range n {
				for j := range n {
					if guard && (w[i*n+k] == graph.Inf || w[k*n+j] == graph.Inf) {
						continue
					}
					if s := w[i*n+k] + w[k*n+j]; s < w[i*n+j] {
						w[i*n+j] = s
					}
				}
			}
		}
		return d.CopyInt32s(w)
	}
}

// CheckAPSP runs a student's all-pairs function on seeded graphs and
// compares every cell with the CPU. A student's function launches their
// %%cuda kernels; this one is plain Go so that the example runs anywhere.
func ExampleCheckAPSP() {
	dev, err := gpu.Emulator()
	if err != nil {
		panic(err)
	}
	opts := lab.CheckOptions{Device: dev, Sizes: []int{1, 7, 33}, Negative: true}
	rep, err := lab.CheckAPSP(context.Background(), hostFW(true), opts)
	fmt.Println(rep.OK(), len(rep.Cases), err)

	rep, err = lab.CheckAPSP(context.Background(), hostFW(false), opts)
	fmt.Println(rep.OK(), err)
	// Output:
	// true 9 <nil>
	// false lab: CheckAPSP: 6 of 9 cases failed; first: sparse graph gnm(n=7,m=14,w=1..100,seed=20240519), n=7: first wrong cell (0, 0): expected 0, got -2147483630 (no distance can be this large: a sum with Inf that wrapped round?); 49 wrong in all
}
