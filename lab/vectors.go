package lab

import (
	"fmt"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
)

// FillRepeating sets xs[i] = f(i mod period): it computes the first
// period values and copies them forward in doubling blocks, so that an
// interpreted cell fills millions of values in a few copies instead of a
// call a value. len(xs) need not be a multiple of period.
func FillRepeating(xs []float32, period int, f func(int) float32) {
	for i := 0; i < min(period, len(xs)); i++ {
		xs[i] = f(i)
	}
	for done := period; done < len(xs); done *= 2 {
		copy(xs[done:], xs[:done])
	}
}

// Probes lists the indices of an n-element result that a check reads,
// ascending: every index when n ≤ all, else every stride-th index and the
// last tail ones.
func Probes(n, all, stride, tail int) []int {
	if n <= all {
		stride, tail = 1, 0
	}
	var out []int
	for i := 0; i < n; i += stride {
		out = append(out, i)
	}
	for i := max(n-tail, 0); i < n; i++ {
		if i%stride != 0 {
			out = append(out, i)
		}
	}
	return out
}

// Int32Buffers copies each of slices into a new int32 buffer on d, in
// order. On an error it frees the buffers it made and returns none.
func Int32Buffers(d *gpu.Device, slices ...[]int32) ([]*cells.Buffer, error) {
	out := make([]*cells.Buffer, 0, len(slices))
	for i, s := range slices {
		b, err := cells.Int32s(d, s)
		if err != nil {
			for _, made := range out {
				made.Free()
			}
			return nil, fmt.Errorf("lab: buffer %d of %d: %w", i+1, len(slices), err)
		}
		out = append(out, b)
	}
	return out, nil
}
