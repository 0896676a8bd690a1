package comm

import (
	"context"
	"fmt"
	"time"

	"github.com/pathnotes/pathnotes/gpu/cells"
)

// Transport moves device buffers between the ranks of a run: broadcasts
// within groups of ranks (a process row, a process column). Broadcasts are
// ordered after the device work queued before them, as a collective on a
// stream of its own would be; Join orders the device work queued after it
// behind them; Fence waits for all of it. Every rank must issue its
// broadcasts in one global order (every group's in the same order, and no
// two ranks ordering two groups' differently), as NCCL requires.
type Transport interface {
	// Name is "tcp" or "nccl".
	Name() string
	// Group returns the group of the world ranks in members, numbered in
	// that order; this rank must be one of them. Every rank creates its
	// groups in the same order, and every member of a group with the same
	// list; a list asked for again gives the same group.
	Group(ctx context.Context, members []int) (Group, error)
	// Join makes the device work queued after it wait for the broadcasts
	// queued before it.
	Join() error
	// Fence waits until the device work and the broadcasts queued so far
	// have finished. It fails at once when the run stops (Control.Done,
	// ctx) and after the transport's timeout; a NCCL transport then aborts
	// its communicators, so that nothing waits on a rank that is gone.
	Fence(ctx context.Context) error
	// Abort ends every broadcast in flight at once (NCCL: its
	// communicators are aborted, which ends their kernels), so that a
	// failed run can free the device memory they use without waiting for
	// ranks that are gone. The transport is unusable afterwards. A run
	// that stops aborts the transport by itself.
	Abort()
	// Traffic returns the bytes this rank sent as a broadcast's root (once
	// per broadcast) and received, so far.
	Traffic() (sent, received int64)
	// Close releases the transport.
	Close() error
}

// Group is a set of ranks that broadcast among themselves.
type Group interface {
	// Rank is this rank's number in the group, Size the group's.
	Rank() int
	Size() int
	// Broadcast copies root's buf into every other member's buf (of the
	// same length), after the device work queued before the call.
	Broadcast(ctx context.Context, buf *cells.Buffer, root int) error
}

// Options are a transport's settings.
type Options struct {
	// Timeout bounds each wait of the transport (a broadcast's, a
	// Fence's): past it the run is stopped on every rank, as a rank that
	// hangs is as bad as one that died. Zero means DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout is Options.Timeout's default.
const DefaultTimeout = 10 * time.Minute

// timeout returns o.Timeout or its default.
func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

// interrupted returns why a wait must end now: the run stopped on some
// rank (a *StopError), or ctx ended; nil otherwise.
func interrupted(ctl *Control, ctx context.Context) error {
	if err := ctl.Err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("comm: %w", context.Cause(ctx))
	}
	return nil
}

// abort stops the run on every rank in this rank's name and returns the
// stop.
func abort(ctl *Control, reason string) error {
	ctl.Abort(reason)
	return ctl.Err()
}

// checkMembers checks a group's member list against the world.
func checkMembers(members []int, rank, size int) (int, error) {
	me, seen := -1, map[int]bool{}
	for i, m := range members {
		if m < 0 || m >= size || seen[m] {
			return -1, fmt.Errorf("comm: group %v: bad or repeated rank %d (world of %d)", members, m, size)
		}
		seen[m] = true
		if m == rank {
			me = i
		}
	}
	if me < 0 {
		return -1, fmt.Errorf("comm: group %v does not hold this rank (%d)", members, rank)
	}
	return me, nil
}
