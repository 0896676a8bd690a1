package session

import (
	"context"
	"errors"
	"time"

	"github.com/traefik/yaegi/interp"
)

// running is the piece of cell code that the interpreter runs now.
type running struct {
	ctx     context.Context // passed to the interpreter, cancelled by stop
	cancel  context.CancelCauseFunc
	stopped chan struct{} // closed once the interpreter has returned
	cause   error         // why the piece was stopped, nil while it may run on
}

// execute runs a compiled piece until it ends or ctx is cancelled.
//
// An interrupt (ctx cancelled, or stopCell) first counts itself in
// hooks.interrupts, then tells the interpreter to stop: a guarded call that
// returns after the count (see guard.go) ends its goroutine before its
// results reach the cell's variables. A piece that was stopped is reported
// as interrupted even if it had just ended by itself, since its last calls
// may not have delivered their results.
func (s *Session) execute(ctx context.Context, prog *interp.Program) error {
	if err := ctx.Err(); err != nil {
		return interrupted()
	}
	depth0 := s.hooks.depth.Load()
	goexits0 := s.goexits.Load()
	pctx, cancel := context.WithCancelCause(context.Background())
	r := &running{ctx: pctx, cancel: cancel, stopped: make(chan struct{})}
	s.mu.Lock()
	s.piece = r
	s.mu.Unlock()
	unwatch := context.AfterFunc(ctx, func() { s.stopCell(context.Cause(ctx)) })
	s.clearTopSite()
	_, err := s.in.ExecuteWithContext(pctx, prog)
	unwatch()
	s.mu.Lock()
	s.piece = nil
	cause := r.cause
	s.mu.Unlock()
	close(r.stopped)
	cancel(nil)
	if cause == nil && ctx.Err() != nil {
		// Interrupted while the piece was ending by itself (a read of
		// stdin gives up at once on an interrupt, before the watcher
		// above has stopped the interpreter): still an interrupt.
		cause = context.Cause(ctx)
	}
	if cause == nil {
		if err == nil && s.goexits.Load() != goexits0 {
			return goexitError() // see goexit.go
		}
		if err == nil {
			return nil
		}
		return s.runtimeError(err)
	}
	var de depthError
	if errors.As(cause, &de) {
		// The frames return in the background: let them, so that the
		// depth count is right for the next cell.
		s.awaitFrames(depth0, 2*time.Second)
		trace := s.takeTrace()
		return &CellError{Name: "StackOverflow", Value: de.Error(), Traceback: append([]string{"StackOverflow: " + de.Error()}, trace...)}
	}
	// The interpreter returns at once on a stop, while the piece's
	// function frames end in the background at their next check: a loop
	// in a function may still run a statement. Let them end, so that
	// nothing of the stopped piece writes a variable after the next cell
	// starts.
	s.awaitFrames(depth0, interruptFrames)
	return interrupted()
}

// interruptFrames bounds how long an interrupt waits for the stopped
// piece's function frames to end (awaitFrames), within the second a
// notebook's interrupt may take.
const interruptFrames = 250 * time.Millisecond

// awaitFrames waits, at most limit, until the interpreted call depth is
// back at depth0: the frames of a stopped piece have returned.
func (s *Session) awaitFrames(depth0 int64, limit time.Duration) {
	for deadline := time.Now().Add(limit); s.hooks.depth.Load() > depth0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

// stopCell stops the piece of cell code that is running, as an interrupt
// would, with cause as the reason. It returns a channel closed once the
// interpreter has been told to stop, or nil when no piece is running.
func (s *Session) stopCell(cause error) <-chan struct{} {
	if cause == nil {
		cause = context.Canceled
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.piece
	if r == nil {
		return nil
	}
	if r.cause == nil {
		r.cause = cause
		s.hooks.interrupts.Add(1) // before the interpreter is told: see guard.go
		r.cancel(cause)
	}
	return r.stopped
}

func interrupted() *CellError {
	return &CellError{Name: "Interrupted", Value: "the cell was interrupted; the session and its variables are kept"}
}
