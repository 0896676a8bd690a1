package memlimit

import (
	"errors"
	"math"
	"runtime/debug"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	if err := Check(CheckFrom - 1); err != nil {
		t.Errorf("Check below CheckFrom: %v", err)
	}
	var e *Error
	if err := Check(1 << 60); !errors.As(err, &e) || e.Need != 1<<60 || e.Spare != (1<<60)/8 {
		t.Fatalf("Check(1 EiB) = %v, want an *Error", err)
	}
	if !strings.HasPrefix(e.Error(), "need 1 EiB, but only ") {
		t.Errorf("message %q", e.Error())
	}
	// Under a Go memory limit 200 MiB above what the runtime holds, 150 MiB
	// leaves less than the 128 MiB of headroom.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	debug.SetMemoryLimit(int64(goHeld() + 200<<20))
	err := Check(150 << 20)
	if !errors.As(err, &e) || !strings.Contains(e.Avail.From, "Go memory limit") ||
		!strings.HasPrefix(e.Error(), "need 150 MiB and 128 MiB of headroom, but only ") {
		t.Errorf("Check(150 MiB) under a limit 200 MiB above the heap = %v", err)
	}
	if err := Check(64 << 20); err != nil {
		t.Errorf("Check(64 MiB) under a limit 200 MiB above the heap = %v", err)
	}
}

func TestHeadroom(t *testing.T) {
	for need, want := range map[uint64]uint64{64 << 20: 128 << 20, 8 << 30: 1 << 30} {
		if got := Headroom(need); got != want {
			t.Errorf("Headroom(%s) = %s, want %s", FormatBytes(need), FormatBytes(got), FormatBytes(want))
		}
	}
}
