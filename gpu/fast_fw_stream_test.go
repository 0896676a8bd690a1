package gpu

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestFWFastStreamed caps the device memory below fw-fast's matrices, so
// that it streams bands of block rows through the emulated device, and
// compares with the CPU in every kernel mode, predecessors included; a cap
// too small even for streaming is an error that says what it needs.
func TestFWFastStreamed(t *testing.T) {
	ctx := context.Background()
	dev := emulator(t)
	for _, n := range []int{300} { // three block rows: three bands of one
		ld := ceilDiv(n, ffTile) * ffTile
		for _, tg := range multiGraphs(t, n) {
			for _, pred := range []bool{false, true} {
				m := uint64(1)
				if pred {
					m = 2
				}
				// Room for the staging buffer and two bands of one block row.
				limit := uint64(n*n)*4 + 2*ffTile*uint64(ld)*4*m + 1024
				var st Stats
				name := fmt.Sprintf("%s, pred %v, %d bytes", tg.name, pred, limit)
				res, err := FWFast(ctx, tg.g, Options{Device: dev, Pred: pred, DeviceMemory: limit, Stats: &st})
				if !matchesCPU(t, name, tg, res, err, pred) {
					continue
				}
				if st.Passes != ld/ffTile {
					t.Errorf("%s: %d passes, want %d", name, st.Passes, ld/ffTile)
				}
			}
		}
	}
	g := mustGraph(t, 300, "0->1 1")
	_, err := FWFast(ctx, g, Options{Device: dev, DeviceMemory: 100000})
	if err == nil || !strings.Contains(err.Error(), "does not fit") || !strings.Contains(err.Error(), "two bands of 128 rows") {
		t.Errorf("a cap too small: %v", err)
	}
	var st Stats
	if _, err := FWFast(ctx, g, Options{Device: dev, Stats: &st}); err != nil || st.Passes != 0 {
		t.Errorf("without a cap: %d passes, %v", st.Passes, err)
	}
}
