package memlimit

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
)

// Error is a request for more memory than the process can still allocate.
type Error struct {
	Need  uint64 // bytes asked for
	Spare uint64 // bytes that must be left beside them (Headroom), 0 for none
	Avail Budget // what is left, and what limits it
}

// Error says "need X, but only Y of memory is available (what limits it)",
// naming the headroom when the need alone would fit.
func (e *Error) Error() string {
	need := FormatBytes(e.Need)
	if e.Need <= e.Avail.Bytes {
		need += " and " + FormatBytes(e.Spare) + " of headroom"
	}
	return fmt.Sprintf("need %s, but only %s of memory is available (%s)", need, FormatBytes(e.Avail.Bytes), e.Avail.From)
}

// CheckFrom is the size from which Check looks at the limits: smaller
// requests pass without a look, which would cost more than they do.
const CheckFrom = 64 << 20

// Headroom is what Check wants left beside an allocation of need bytes: an
// eighth of it and at least 128 MiB. The Go runtime maps its heap in 64 MiB
// arenas and needs memory of its own as it grows, and the garbage of a
// growing slice is freed only at the next collection: an allocation that
// just fits may still be refused by the system, which ends the process.
func Headroom(need uint64) uint64 { return max(need/8, 128<<20) }

// Check returns an *Error when need bytes, and Headroom(need) beside them,
// are more than the running process can still allocate: Available, and the
// room under the Go runtime's memory limit when one is set (GOMEMLIMIT or
// SetGoLimit). Garbage and the free memory the Go runtime keeps count as
// room: before it refuses, Check collects and returns them to the system
// and looks again. Requests under CheckFrom, and any when nothing is known,
// pass.
//
// An allocation larger than the memory left ends a Go process ("fatal
// error: out of memory"), which no recover can stop: code that allocates
// what a user or a file asks for checks first.
func Check(need uint64) error {
	if need < CheckFrom {
		return nil
	}
	spare := Headroom(need)
	fits := func(room Budget) bool { return need <= room.Bytes && room.Bytes-need >= spare }
	if room, ok := goRoom(); !ok || fits(room) {
		return nil
	}
	debug.FreeOSMemory()
	room, ok := goRoom()
	if !ok || fits(room) {
		return nil
	}
	return &Error{Need: need, Spare: spare, Avail: room}
}

// goRoom is the least of Available and the room under the Go memory limit.
func goRoom() (Budget, bool) {
	room, ok := Available()
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 {
		return room, ok
	}
	held := goHeld()
	left := uint64(0)
	if uint64(limit) > held {
		left = uint64(limit) - held
	}
	if !ok || left < room.Bytes {
		return Budget{left, fmt.Sprintf("Go memory limit %s, %s in use", FormatBytes(uint64(limit)), FormatBytes(held))}, true
	}
	return room, ok
}

// goHeld is the memory the Go runtime holds and counts against its memory
// limit: all it has mapped, less what it has returned to the system.
func goHeld() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64() - min(s[0].Value.Uint64(), s[1].Value.Uint64())
}

// SetGoLimit sets the running process's Go soft memory limit
// (debug.SetMemoryLimit) to GoLimit, so that the garbage collector works
// harder before a limit is reached rather than after, unless GOMEMLIMIT
// sets one already. It returns the limit it set; ok is false when it set
// none.
func SetGoLimit() (Budget, bool) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return Budget{}, false
	}
	limit, ok := GoLimit(goHeld())
	if !ok {
		return Budget{}, false
	}
	debug.SetMemoryLimit(int64(min(limit.Bytes, math.MaxInt64)))
	return limit, true
}
