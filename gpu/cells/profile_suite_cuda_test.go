//go:build cuda

package cells

import "testing"

// TestProfileSuiteCard makes the profile suite's launches on the card, for
// Nsight Compute to count (docs/cell-kernels.md has the command), and logs
// what the driver says of each: registers, static shared memory and
// occupancy.
func TestProfileSuiteCard(t *testing.T) {
	ps, _ := profiledSuite(t, testDevice(t))
	for i, lp := range ps {
		o := lp.Occupancy
		if lp.Registers == 0 || o.BlocksPerSM == 0 || lp.Counts != nil {
			t.Errorf("%s: registers %d, occupancy %+v, counts %v: the card gives registers and occupancy, no counts", lp.Kernel, lp.Registers, o, lp.Counts)
		}
		t.Logf("launch %d %s: %d registers, %d B shared, %d blocks (%d warps) of %d per SM, %.0f%%, by %s",
			i, lp.Kernel, lp.Registers, lp.SharedBytes, o.BlocksPerSM, o.WarpsPerSM, o.MaxWarpsPerSM, 100*o.Fraction(), o.Limiter)
	}
}
