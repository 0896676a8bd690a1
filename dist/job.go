package dist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/pathnotes/pathnotes/dist/comm"
	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
	"github.com/pathnotes/pathnotes/graph"
)

// Job is one rank's run of `pathnotes apsp`: the graph (every rank holds
// it), where the result goes, and how the ranks meet and talk.
type Job struct {
	Graph  *graph.Graph
	Source string // the graph's name as the run was given it, for the manifest
	Out    string // the result's directory
	Grid   Grid   // zero: the squarest grid of the ranks (SquareGrid)
	Pred   bool
	// Transport is "nccl", "tcp", or "auto" (or ""): NCCL on a CUDA
	// device, TCP on the emulator.
	Transport string
	// Device is the GPU's ordinal; −1 takes the local rank modulo the
	// devices this process sees.
	Device     int
	Rendezvous comm.Rendezvous
	// Key identifies the run (the command's arguments): ranks with
	// different keys refuse to run together.
	Key string
	// Timeout bounds the rendezvous and every wait on the other ranks.
	Timeout time.Duration
	// Probe, when positive, times that many broadcasts of a row panel's
	// size in each process column and row before the run.
	Probe int
	// Check, when positive, has rank 0 read that many sampled rows of the
	// written result back and compare them with sssp-fast on the graph,
	// and the files with their checksums.
	Check int
	// Log gets rank 0's progress lines; nil: none.
	Log io.Writer
	// Stuck, if set, is called when the run stopped StopGrace ago and Run
	// has still not returned (a call into the GPU driver or NCCL that
	// does not end): a command exits there, so that no rank hangs.
	Stuck func(error)
}

// StopGrace is how long a stopped run may take to end before Job.Stuck.
const StopGrace = 30 * time.Second

// Summary is what a run did, gathered by rank 0 from every rank.
type Summary struct {
	N, M      int
	Grid      string
	Pred      bool
	Transport string
	NCCL      string `json:",omitempty"`
	Device    string
	Kernels   string
	Out       string
	// Per rank: seconds of setup (tiles built and uploaded), rounds,
	// download, writing; bytes sent as a root and received.
	Setup, Rounds, Download, Write []float64
	Sent, Received                 []int64
	// Probe: bytes a second of a broadcast (its bytes over its time) in a
	// process column and a process row, as rank 0 timed them.
	Probe []ProbeResult `json:",omitempty"`
	Check string        `json:",omitempty"`
}

// MaxRounds returns the slowest rank's rounds time, the run's.
func (s *Summary) MaxRounds() float64 { return Slowest(s.Rounds) }

// Slowest returns the largest of the ranks' times.
func Slowest(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// ProbeResult is one probe's rate.
type ProbeResult struct {
	Group        string // "column" or "row"
	Ranks, Bytes int
	Times        int
	Seconds      float64
	Rate         float64 // bytes a second: Bytes·Times/Seconds
}

// SquareGrid returns the grid P×Q of ranks with P ≤ Q as close as can be.
func SquareGrid(ranks int) Grid {
	p := int(math.Sqrt(float64(ranks)))
	for ranks%p != 0 {
		p--
	}
	return Grid{P: p, Q: ranks / p}
}

// rankRecord is one rank's part of the Summary.
type rankRecord struct {
	Setup, Rounds, Download, Write float64
	Sent, Received                 int64
}

// Run is rank l.Rank's whole run: the device, the rendezvous, the
// transport, the rounds, the result written, and (rank 0) the check. It
// returns the Summary on rank 0 (nil elsewhere). Cancelling ctx (an
// interrupt) stops the run on every rank. NCCL_NVLS_ENABLE is set to 0
// first, whatever the launcher passed: NVLink SHARP is kept off.
func (j *Job) Run(ctx context.Context, l comm.Launch) (*Summary, error) {
	if err := os.Setenv("NCCL_NVLS_ENABLE", "0"); err != nil {
		return nil, err
	}
	grid := j.Grid
	if grid.P == 0 && grid.Q == 0 {
		grid = SquareGrid(l.Size)
	}
	if grid.P < 1 || grid.Q < 1 || grid.Ranks() != l.Size {
		return nil, fmt.Errorf("dist: grid %s has %d ranks, the launcher started %d", grid, grid.Ranks(), l.Size)
	}
	dev, err := j.device(l)
	if err != nil {
		return nil, err
	}
	timeout := j.Timeout
	if timeout <= 0 {
		timeout = comm.DefaultTimeout
	}
	ctl, err := comm.Connect(ctx, l, j.Rendezvous, j.Key, timeout)
	if err != nil {
		return nil, err
	}
	defer ctl.Close()
	returned := make(chan struct{})
	defer close(returned)
	go func() {
		select {
		case <-ctl.Done():
		case <-returned:
			return
		}
		select {
		case <-returned:
		case <-time.After(StopGrace):
			if j.Stuck != nil {
				j.Stuck(fmt.Errorf("rank %d of %d: %v; %v later this rank still waits in the GPU driver or NCCL: giving up",
					l.Rank, l.Size, ctl.Err(), StopGrace))
			}
		}
	}()
	// An interrupt on this rank stops every rank.
	stopWatch := context.AfterFunc(ctx, func() { ctl.Abort(interruptReason(ctx)) })
	defer stopWatch()
	kind := j.Transport
	if kind == "" || kind == "auto" {
		kind = "tcp"
		if dev.Driver() == "cuda" {
			kind = "nccl"
		}
	}
	opts := comm.Options{Timeout: timeout}
	var tr comm.Transport
	switch kind {
	case "nccl":
		tr, err = comm.NewNCCL(ctx, ctl, dev, opts)
	case "tcp":
		tr, err = comm.NewTCP(ctx, ctl, dev, opts)
	default:
		err = fmt.Errorf("dist: unknown transport %q (nccl, tcp or auto)", kind)
	}
	if tr != nil {
		defer tr.Close()
	}
	// Every rank learns whether every transport started.
	if err := agree(ctx, ctl, "starting the "+kind+" transport", err); err != nil {
		return nil, err
	}
	sum := &Summary{N: j.Graph.N(), M: j.Graph.M(), Grid: grid.String(), Pred: j.Pred, Transport: kind,
		Device: dev.Info().Name, Out: j.Out}
	if kind == "nccl" {
		sum.NCCL, _ = comm.NCCLVersion()
	}
	if err := j.run(ctx, ctl, tr, dev, grid, sum); err != nil {
		// Whatever failed, no rank waits for this one: the run stops
		// everywhere, and the transport drops what is in flight.
		ctl.Abort(err.Error())
		tr.Abort()
		return nil, err
	}
	if ctl.Rank() != 0 {
		return nil, nil
	}
	return sum, nil
}

// run is Run once the ranks have met and the transport works: the
// directory prepared, the probe, the rounds, the result written and
// checked, and every rank's record gathered into sum on rank 0.
func (j *Job) run(ctx context.Context, ctl *comm.Control, tr comm.Transport, dev *gpu.Device, grid Grid, sum *Summary) error {
	if err := Prepare(ctx, ctl, j.Out); err != nil {
		return err
	}
	var err error
	if j.Probe > 0 {
		if sum.Probe, err = probe(ctx, tr, dev, grid, ctl.Rank(), j.Graph.N(), j.Probe); err != nil {
			return err
		}
	}
	cfg := Config{Grid: grid, Pred: j.Pred, Device: dev, Control: ctl, Transport: tr}
	if j.Log != nil && ctl.Rank() == 0 {
		last := time.Now()
		cfg.Progress = func(done, rounds int) {
			if done == 1 || done == rounds || time.Since(last) > 5*time.Second {
				fmt.Fprintf(j.Log, "round %d of %d\n", done, rounds)
				last = time.Now()
			}
		}
	}
	part, err := FloydWarshall(ctx, j.Graph, cfg)
	if err != nil {
		return err
	}
	sum.Kernels = part.Kernels
	start := time.Now()
	if err := Write(ctx, ctl, j.Out, part, j.Source); err != nil {
		return err
	}
	rec := rankRecord{Setup: part.Setup.Seconds(), Rounds: part.Rounds.Seconds(), Download: part.Download.Seconds(),
		Write: time.Since(start).Seconds()}
	for k := range part.Sent {
		rec.Sent += part.Sent[k]
		rec.Received += part.Received[k]
	}
	part = nil
	var checkErr error
	if j.Check > 0 && ctl.Rank() == 0 {
		sum.Check, checkErr = Check(ctx, j.Graph, j.Out, dev, j.Check, 1)
	}
	if err := agree(ctx, ctl, "checking the result", checkErr); err != nil {
		return err
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	all, err := ctl.AllGather(ctx, data)
	if err != nil || ctl.Rank() != 0 {
		return err
	}
	for _, d := range all {
		var r rankRecord
		if err := json.Unmarshal(d, &r); err != nil {
			return err
		}
		sum.Setup = append(sum.Setup, r.Setup)
		sum.Rounds = append(sum.Rounds, r.Rounds)
		sum.Download = append(sum.Download, r.Download)
		sum.Write = append(sum.Write, r.Write)
		sum.Sent = append(sum.Sent, r.Sent)
		sum.Received = append(sum.Received, r.Received)
	}
	return nil
}

// interruptReason says why ctx ended, for the other ranks.
func interruptReason(ctx context.Context) string {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		return c.Error()
	}
	return "interrupted"
}

// device opens the rank's GPU: Job.Device, or the local rank modulo the
// devices this process sees (one, where the launcher gives each rank its
// own through CUDA_VISIBLE_DEVICES).
func (j *Job) device(l comm.Launch) (*gpu.Device, error) {
	ordinal := j.Device
	if ordinal < 0 {
		n, err := gpu.Count()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, errors.New("dist: this process sees no GPU")
		}
		ordinal = l.LocalRank % n
	}
	return gpu.Open(ordinal)
}

// probe times k broadcasts of a row panel's size (128·n/Q values) from
// member 0 in this rank's process column, then k of a column panel's
// (128·n/P) in its process row, each after one untimed broadcast; every
// rank takes part, rank 0's times are returned.
func probe(ctx context.Context, tr comm.Transport, dev *gpu.Device, grid Grid, rank, n, k int) ([]ProbeResult, error) {
	p, q := rank/grid.Q, rank%grid.Q
	var out []ProbeResult
	for _, g := range []struct {
		name    string
		members []int
		values  int
	}{
		{"column", seq(grid.P, func(i int) int { return i*grid.Q + q }), Tile * ceilDiv(n, grid.Q)},
		{"row", seq(grid.Q, func(i int) int { return p*grid.Q + i }), Tile * ceilDiv(n, grid.P)},
	} {
		grp, err := tr.Group(ctx, g.members)
		if err != nil {
			return nil, err
		}
		buf, err := cells.NewBuffer(dev, cells.Int32, g.values)
		if err != nil {
			return nil, err
		}
		// One broadcast first, untimed: NCCL connects the peers of a
		// communicator at its first collective.
		if err := grp.Broadcast(ctx, buf, 0); err != nil {
			return nil, err
		}
		if err := tr.Fence(ctx); err != nil {
			return nil, err
		}
		start := time.Now()
		for range k {
			if err := grp.Broadcast(ctx, buf, 0); err != nil {
				return nil, err
			}
		}
		if err := tr.Fence(ctx); err != nil {
			return nil, err
		}
		dt := time.Since(start).Seconds()
		_ = buf.Free()
		if len(g.members) > 1 {
			out = append(out, ProbeResult{Group: g.name, Ranks: len(g.members), Bytes: 4 * g.values, Times: k,
				Seconds: dt, Rate: float64(4*g.values*k) / dt})
		}
	}
	return out, nil
}

// seq returns f(0), ..., f(n−1).
func seq(n int, f func(int) int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = f(i)
	}
	return s
}

// ceilDiv is ⌈a/b⌉.
func ceilDiv(a, b int) int { return (a + b - 1) / b }

// Check reads k rows of the result in dir, drawn with seed, back through
// graph.OpenAllPairs and compares each with sssp-fast from the same source
// (bf-fast where the graph has negative arcs) on dev and against the graph (every arc relaxed, every distance
// attained, with Π every path's weight), then the files' checksums. It
// returns the check's description.
func Check(ctx context.Context, g *graph.Graph, dir string, dev *gpu.Device, k int, seed uint64) (string, error) {
	res, err := graph.OpenAllPairs(dir)
	if err != nil {
		return "", err
	}
	defer res.Close()
	if err := res.UseGraph(g); err != nil {
		return "", err
	}
	// sssp-fast takes non-negative weights; bf-fast the others.
	name, solve := gpu.VariantSSSPFast, gpu.SSSPFast
	if lo, _ := g.WeightRange(); lo < 0 {
		name, solve = gpu.VariantBFFast, gpu.BFFast
	}
	if g.N() == 0 {
		k = 0
	}
	rng := rand.New(rand.NewPCG(seed, 30))
	for range k {
		src := rng.IntN(g.N())
		row, err := res.Row(src)
		if err != nil {
			return "", err
		}
		if err := row.Verify(g); err != nil {
			return "", fmt.Errorf("row %d: %w", src, err)
		}
		want, err := solve(ctx, g, src, gpu.Options{Device: dev})
		if err != nil {
			return "", err
		}
		if !row.SameDistances(want) {
			return "", fmt.Errorf("row %d differs from %s:\n%s", src, name, row.Diff(want, 5))
		}
	}
	if err := res.Verify(); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d sampled rows = %s and verified on the graph; %d files' CRC-32C match", k, name, len(res.Manifest.Files)), nil
}
