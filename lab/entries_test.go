package lab

import (
	"context"
	"testing"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
)

// TestEntryWithoutFunction checks that both timers refuse an entry without a function, naming
// the timer, the entry's index and its name, before they time anything.
func TestEntryWithoutFunction(t *testing.T) {
	ctx := context.Background()
	fn := func(*gpu.Device, *cells.Buffer, int) error { return nil }
	_, err := TimeAPSP(ctx, []APSPEntry{{Name: "ok", Func: fn}, {Name: "mine"}}, []int{8}, TimeOptions{})
	if want := `lab: TimeAPSP: entry 1 ("mine") has no function`; err == nil || err.Error() != want {
		t.Errorf("TimeAPSP: %v, want %s", err, want)
	}
	_, err = TimeSSSP(ctx, []SSSPEntry{{Name: "mine"}}, []int{8}, TimeOptions{})
	if want := `lab: TimeSSSP: entry 0 ("mine") has no function`; err == nil || err.Error() != want {
		t.Errorf("TimeSSSP: %v, want %s", err, want)
	}
}
