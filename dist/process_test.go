package dist

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/dist/comm"
	"github.com/pathnotes/pathnotes/graph"
)

// envChild carries a childJob to a copy of the test binary that runs as a
// rank (TestMain).
const envChild = "PATHNOTES_DIST_TEST_JOB"

// childJob is what a rank process runs: a random graph, the job's
// settings, and how this run fails (Fail: "int" sends the rank SIGINT,
// "kill" SIGKILL, "hang" stops it for Hang, on rank FailRank after it
// queued round FailRound).
type childJob struct {
	N, M      int
	Neg       bool
	Out       string
	Grid      Grid
	Pred      bool
	File      string // rendezvous file, instead of MASTER_ADDR
	Timeout   time.Duration
	Check     int
	Fail      string
	FailRank  int
	FailRound int
	Hang      time.Duration
}

// graph builds the job's graph, the same on every rank.
func (c childJob) graph() (*graph.Graph, error) {
	if c.Neg {
		return shifted(c.N, c.M, 7)
	}
	return graph.GNM(c.N, c.M, graph.WeightRange{Min: 1, Max: 50}, 7)
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(envChild); spec != "" {
		os.Exit(runChild(spec))
	}
	os.Exit(m.Run())
}

// runChild is one rank process: the job from spec, the launch from the
// environment (SpawnLocal's torchrun variables). Every queued round prints
// "rank R round K".
func runChild(spec string) int {
	var c childJob
	if err := json.Unmarshal([]byte(spec), &c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	l, err := comm.FromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	g, err := c.graph()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, stop := OnInterrupt(l.Rank)
	defer stop()
	roundHook = func(rank, round int) {
		fmt.Printf("rank %d round %d\n", rank, round)
		if rank != c.FailRank || round != c.FailRound {
			return
		}
		switch c.Fail {
		case "int":
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				_ = p.Signal(os.Interrupt)
			}
		case "kill":
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				_ = p.Kill()
			}
		case "hang":
			time.Sleep(c.Hang)
		}
	}
	job := &Job{Graph: g, Source: "gnm", Out: c.Out, Grid: c.Grid, Pred: c.Pred, Transport: "tcp", Device: 0,
		Rendezvous: comm.Rendezvous{Addr: l.Addr}, Key: spec, Timeout: c.Timeout, Check: c.Check}
	if c.File != "" {
		job.Rendezvous = comm.Rendezvous{File: c.File}
	}
	sum, err := job.Run(ctx, l)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rank %d of %d: %v\n", l.Rank, l.Size, err)
		return 1
	}
	if sum != nil {
		fmt.Printf("check: %s\n", sum.Check)
	}
	return 0
}

// spawn runs ranks copies of the test binary as the ranks of c and
// returns their output and SpawnLocal's error.
func spawn(t *testing.T, c childJob, ranks int) (stdout, stderr string, err error) {
	t.Helper()
	spec, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), envChild+"="+string(spec), "PATHNOTES_GPU=emu")
	var out, errb bytes.Buffer
	err = SpawnLocal(context.Background(), ranks, []string{os.Args[0], "-test.run=^$"}, env, &out, &errb)
	return out.String(), errb.String(), err
}

// TestRanksAsProcesses runs ranks as processes over the emulator and TCP
// on loopback, as `pathnotes apsp --local-ranks` does, and reads the
// written result back through graph.OpenAllPairs: every row against
// cpu.FloydWarshall, paths against the graph, the files' checksums; rank 0
// checked sampled rows against sssp-fast (bf-fast with negative arcs).
func TestRanksAsProcesses(t *testing.T) {
	cases := []struct {
		job   childJob
		ranks int
	}{
		{childJob{N: 300, M: 900, Grid: Grid{2, 2}, Pred: true, Check: 2}, 4},
		{childJob{N: 200, M: 500, Neg: true, Grid: Grid{1, 3}, Check: 1}, 3},
	}
	if testing.Short() {
		cases = cases[:1]
	}
	for i, c := range cases {
		c.job.Out = filepath.Join(t.TempDir(), "result")
		c.job.Timeout = 5 * time.Minute
		if i == 1 {
			c.job.File = filepath.Join(t.TempDir(), "rendezvous")
		}
		t.Run(fmt.Sprintf("%d ranks, grid %s", c.ranks, c.job.Grid), func(t *testing.T) {
			stdout, stderr, err := spawn(t, c.job, c.ranks)
			if err != nil {
				t.Fatalf("%v\n%s%s", err, stdout, stderr)
			}
			if !strings.Contains(stdout, "[rank 0] check: ") || !strings.Contains(stdout, "files' CRC-32C match") {
				t.Errorf("rank 0 printed no check:\n%s", stdout)
			}
			g, err := c.job.graph()
			if err != nil {
				t.Fatal(err)
			}
			want, err := cpu.FloydWarshall(context.Background(), g, cpu.FWOptions{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := graph.OpenAllPairs(c.job.Out)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Close()
			if err := res.Verify(); err != nil {
				t.Fatal(err)
			}
			if err := res.UseGraph(g); err != nil {
				t.Fatal(err)
			}
			for u := range g.N() {
				row, err := res.Row(u)
				if err != nil {
					t.Fatal(err)
				}
				if !row.SameDistances(want.Row(u)) {
					t.Fatalf("row %d:\n%s", u, row.Diff(want.Row(u), 5))
				}
				if c.job.Pred {
					if err := row.Verify(g); err != nil {
						t.Fatal(err)
					}
				}
				v := (u * 37) % g.N()
				d, err := res.Dist(u, v)
				if err != nil || d != want.At(u, v) {
					t.Fatalf("Dist(%d, %d) = %d, %v; want %d", u, v, d, err, want.At(u, v))
				}
			}
		})
	}
}

// roundRe matches the rounds a rank process reports.
var roundRe = regexp.MustCompile(`\[rank (\d+)\] rank \d+ round (\d+)`)

// lastRounds returns the last round each rank reported.
func lastRounds(stdout string) map[int]int {
	last := map[int]int{}
	for _, m := range roundRe.FindAllStringSubmatch(stdout, -1) {
		r, _ := strconv.Atoi(m[1])
		k, _ := strconv.Atoi(m[2])
		last[r] = max(last[r], k)
	}
	return last
}

// TestStopsEveryRank stops a run in its first round in each way a rank can
// go (an interrupt, a kill, a hang past the timeout) and checks that every
// rank exits with an error naming the rank and the cause, none queues more
// than one round past the one it was in when the rank stopped, after an
// interrupt or a kill, and the directory
// holds no manifest (an earlier
// result's is removed first, so that the half-written one is never read).
func TestStopsEveryRank(t *testing.T) {
	cases := []struct {
		name  string
		job   childJob
		ranks int
		want  string
	}{
		{"SIGINT", childJob{Fail: "int", FailRank: 2}, 4, "rank 2 stopped the run: interrupted (SIGINT) on rank 2"},
		{"rank 1 killed", childJob{Fail: "kill", FailRank: 1}, 3, "rank 1 stopped the run: its connection to rank 0 was lost"},
		{"rank 0 killed", childJob{Fail: "kill", FailRank: 0}, 2, "rank 0 stopped the run: the connection to rank 0 was lost"},
		{"rank 1 hangs", childJob{Fail: "hang", FailRank: 1, Hang: 20 * time.Second, Timeout: 3 * time.Second}, 2, "longer than 3s"},
	}
	if testing.Short() {
		cases = cases[:1]
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.job.N, c.job.M, c.job.Grid = 384, 1000, SquareGrid(c.ranks)
			if c.job.Timeout == 0 {
				c.job.Timeout = 5 * time.Minute
			}
			c.job.Out = t.TempDir()
			stale := filepath.Join(c.job.Out, graph.ManifestName)
			if err := os.WriteFile(stale, []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			stdout, stderr, err := spawn(t, c.job, c.ranks)
			if err == nil {
				t.Fatalf("the run succeeded:\n%s%s", stdout, stderr)
			}
			for r := range c.ranks {
				if r == c.job.FailRank && c.job.Fail == "kill" {
					continue
				}
				prefix := fmt.Sprintf("[rank %d] rank %d of %d: ", r, r, c.ranks)
				line := ""
				for _, l := range strings.Split(stderr, "\n") {
					if strings.HasPrefix(l, prefix) {
						line = l
					}
				}
				if !strings.Contains(line, c.want) {
					t.Errorf("rank %d's error %q does not say %q\nstderr:\n%s", r, line, c.want, stderr)
				}
			}
			// A rank may be ahead of the failing one when it fails (its
			// round at the failing rank's last line, in the launcher's
			// output): it may finish the round it is in and queue one more.
			failLine := fmt.Sprintf("[rank %d] rank %d round %d", c.job.FailRank, c.job.FailRank, c.job.FailRound)
			before := lastRounds(stdout[:max(strings.Index(stdout, failLine), 0)])
			for r, k := range lastRounds(stdout) {
				// A hung rank is found at the next exchange that needs it,
				// within the timeout, not within a round.
				at, ok := before[r]
				if !ok || at < c.job.FailRound {
					at = c.job.FailRound
				}
				if c.job.Fail != "hang" && k > at+1 {
					t.Errorf("rank %d queued round %d after rank %d stopped in round %d (rank %d was in round %d then)", r, k, c.job.FailRank, c.job.FailRound, r, at)
				}
			}
			if _, err := graph.OpenAllPairs(c.job.Out); err == nil || !strings.Contains(err.Error(), "did not finish") {
				t.Errorf("OpenAllPairs on the stopped run's directory: %v, want a refusal", err)
			}
			t.Logf("%s: every rank stopped within %v", c.name, time.Since(start).Round(time.Second))
		})
	}
}
