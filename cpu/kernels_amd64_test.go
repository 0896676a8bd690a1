package cpu

import (
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

// kernelValue draws a working-matrix entry of the fast blocked path: a
// real distance in [-L, 2L] for L = MaxDistance/8, or the "no path"
// sentinel minus a path weight.
func kernelValue(rng *rand.Rand) int32 {
	const l = graph.MaxDistance / 8
	if rng.IntN(4) == 0 {
		return graph.MaxDistance - rng.Int32N(2*l)
	}
	return rng.Int32N(3*l+1) - l
}

// TestSIMDKernelsMatchGo checks each AVX2 kernel lane by lane against the
// loop it replaces, on random entries that include the sentinel and ties.
func TestSIMDKernelsMatchGo(t *testing.T) {
	if simd == nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("this amd64 CPU lacks AVX2, so the vector kernels cannot be checked")
		}
		t.Skip("this amd64 CPU lacks AVX2: the vector kernels are off and untested here")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(n int) ([]int32, []int32) {
		d, p := make([]int32, n), make([]int32, n)
		for i := range d {
			d[i], p[i] = kernelValue(rng), rng.Int32N(1000)
			if rng.IntN(8) == 0 && i > 0 {
				d[i] = d[i-1] // ties
			}
		}
		return d, p
	}
	for trial := range 200 {
		stride := 64 + rng.IntN(40)
		rows, depth := 1+rng.IntN(12), 1+rng.IntN(40)
		width := 8 * (1 + rng.IntN(stride/8))
		d, p := fill(stride * max(rows, depth) * 2)
		bOff := rows * stride // b rows start below the c rows
		aOff := width         // a values sit right of the c columns
		if aOff+depth > stride {
			aOff = stride - depth
		}
		for _, pred := range []bool{false, true} {
			// pivotRows: one pivot, rows rows.
			wantD, wantP := slices.Clone(d), slices.Clone(p)
			for i := range rows {
				a := wantD[i*stride+aOff]
				for j := range width {
					if s := a + wantD[bOff+j]; s < wantD[i*stride+j] {
						wantD[i*stride+j], wantP[i*stride+j] = s, wantP[bOff+j]
					}
				}
			}
			gotD, gotP := slices.Clone(d), slices.Clone(p)
			if pred {
				simd.pivotRowsPred(&gotD[0], &gotP[0], &gotD[aOff], &gotD[bOff], &gotP[bOff], rows, width, stride)
			} else {
				simd.pivotRows(&gotD[0], &gotD[aOff], &gotD[bOff], rows, width, stride)
				wantP = gotP
			}
			if !slices.Equal(gotD, wantD) || !slices.Equal(gotP, wantP) {
				t.Fatalf("trial %d pivotRows pred=%v rows=%d width=%d stride=%d: differs from the Go loop", trial, pred, rows, width, stride)
			}
			// strips of 32 and 8 lanes, depth pivots in order.
			for _, lanes := range []int{32, 8} {
				wantD, wantP = slices.Clone(d), slices.Clone(p)
				for i := range rows {
					for k := range depth {
						a := wantD[i*stride+32+k]
						for j := range lanes {
							if s := a + wantD[bOff+k*stride+j]; s < wantD[i*stride+j] {
								wantD[i*stride+j], wantP[i*stride+j] = s, wantP[bOff+k*stride+j]
							}
						}
					}
				}
				gotD, gotP = slices.Clone(d), slices.Clone(p)
				strip, stripPred := simd.strip, simd.stripPred
				if lanes == 8 {
					strip, stripPred = simd.strip8, simd.strip8Pred
				}
				if pred {
					stripPred(&gotD[0], &gotP[0], &gotD[32], &gotD[bOff], &gotP[bOff], rows, depth, stride)
				} else {
					strip(&gotD[0], &gotD[32], &gotD[bOff], rows, depth, stride)
					wantP = gotP
				}
				if !slices.Equal(gotD, wantD) || !slices.Equal(gotP, wantP) {
					t.Fatalf("trial %d %d-lane strip pred=%v rows=%d depth=%d stride=%d: differs from the Go loop", trial, lanes, pred, rows, depth, stride)
				}
			}
		}
	}
}
