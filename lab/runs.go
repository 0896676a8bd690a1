package lab

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/graph"
)

// AllPairsRun is one run of an all-pairs solver, on the GPU or on the
// host: its result and its statistics (Wall and Kernel are what
// MeanAllPairs averages).
type AllPairsRun func() (*graph.AllPairs, gpu.Stats, error)

// MeanAllPairs calls run times times and returns the mean wall and kernel
// seconds of the runs and the first run's result. The first result must
// have ref's distances when ref is not nil, and every later one the
// first's: the error says where not, as it does for a run that fails.
func MeanAllPairs(times int, ref *graph.AllPairs, run AllPairsRun) (wall, kernel float64, first *graph.AllPairs, err error) {
	if times < 1 {
		return 0, 0, nil, fmt.Errorf("lab: MeanAllPairs with %d runs, want at least 1", times)
	}
	for i := 0; i < times; i++ {
		r, st, err := run()
		if err != nil {
			return 0, 0, nil, err
		}
		if r == nil {
			return 0, 0, nil, errors.New("lab: MeanAllPairs: a run returned no result")
		}
		wall, kernel = wall+st.Wall.Seconds(), kernel+st.Kernel.Seconds()
		switch {
		case first == nil && ref != nil && !r.SameDistances(ref):
			return 0, 0, nil, fmt.Errorf("%s and %s differ (|V|=%d):\n%s", r.Solver, ref.Solver, r.N, r.Diff(ref, 5))
		case first != nil && !r.SameDistances(first):
			return 0, 0, nil, fmt.Errorf("%s gave different distances on runs 1 and %d (|V|=%d):\n%s", r.Solver, i+1, r.N, r.Diff(first, 5))
		}
		if first == nil {
			first = r
		}
	}
	return wall / float64(times), kernel / float64(times), first, nil
}

// OnHost makes an AllPairsRun of a solver that runs on the host: its
// Stats hold the host time of the call as both Wall and Kernel.
func OnHost(solve func() (*graph.AllPairs, error)) AllPairsRun {
	return func() (*graph.AllPairs, gpu.Stats, error) {
		t0 := time.Now()
		r, err := solve()
		el := time.Since(t0)
		return r, gpu.Stats{Wall: el, Kernel: el}, err
	}
}

// Agree checks r against the reference ref on g: the same distances, and
// a Π that VerifyWorkers accepts (on every core), whichever way it breaks
// ties. It says whether Π is ref's too: "same D and Π", or "same D; Π
// differs on ties, verified".
func Agree(ctx context.Context, g *graph.Graph, r, ref *graph.AllPairs) (string, error) {
	if !r.SameDistances(ref) {
		return "", fmt.Errorf("%s and %s differ on %s (|V|=%d):\n%s", r.Solver, ref.Solver, g.Name(), g.N(), r.Diff(ref, 5))
	}
	if err := r.VerifyWorkers(ctx, g, 0); err != nil {
		return "", fmt.Errorf("%s: %w", r.Solver, err)
	}
	if r.Equal(ref) {
		return "same D and Π", nil
	}
	return "same D; Π differs on ties, verified", nil
}
