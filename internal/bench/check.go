package bench

import (
	"math"
	"math/rand/v2"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/graph"
)

// DPXCeiling is the int32 min-plus relaxations per second of a Hopper GPU
// (compute capability 9), one VIADDMNMX each: SMs × 64 per clock × the SM
// clock. Other cards have no DPX unit: their ceiling is +Inf, so a
// fraction of it is 0.
func DPXCeiling(info gpu.DeviceInfo) float64 {
	if info.Major != 9 || info.ClockMHz == 0 {
		return math.Inf(1)
	}
	return float64(info.SMs) * 64 * float64(info.ClockMHz) * 1e6
}

// SampleRows checks k rows of r, drawn with seed, against g: the triangle
// inequality on every arc and every finite distance attained by an arc
// (graph.SingleSource.Verify). It is the check of all-pairs results too
// large for a CPU reference.
func SampleRows(g *graph.Graph, r *graph.AllPairs, k int, seed uint64) error {
	for _, i := range Rows(r.N, k, seed) {
		if err := r.Row(i).Verify(g); err != nil {
			return err
		}
	}
	return nil
}

// Rows draws k row indices below n with seed, the rows the sampled checks
// look at.
func Rows(n, k int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 11))
	rows := make([]int, k)
	for i := range rows {
		rows[i] = rng.IntN(n)
	}
	return rows
}
