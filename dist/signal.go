package dist

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// OnInterrupt returns a context that ends at this process's first SIGINT
// or SIGTERM, its cause saying which and on which rank ("interrupted
// (SIGINT) on rank 2"): a Job run with it stops every rank. Later signals
// change nothing. stop releases the signals.
func OnInterrupt(rank int) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	quit := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			name := "SIGINT"
			if s == syscall.SIGTERM {
				name = "SIGTERM"
			}
			cancel(fmt.Errorf("interrupted (%s) on rank %d", name, rank))
		case <-quit:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(quit)
		cancel(nil)
	}
}
