package comm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
)

func TestFromEnv(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want Launch
		err  string
	}{
		{map[string]string{}, Launch{Size: 1, By: "none"}, ""},
		{map[string]string{"RANK": "3", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "MASTER_ADDR": "node1", "MASTER_PORT": "1234"},
			Launch{Rank: 3, Size: 8, LocalRank: 1, By: "torchrun", Addr: "node1:1234"}, ""},
		{map[string]string{"SLURM_PROCID": "5", "SLURM_NTASKS": "16", "SLURM_LOCALID": "5", "MASTER_ADDR": "10.0.0.1"},
			Launch{Rank: 5, Size: 16, LocalRank: 5, By: "Slurm", Addr: "10.0.0.1:29500"}, ""},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_RANK": "2"},
			Launch{Rank: 2, Size: 4, LocalRank: 2, By: "Open MPI"}, ""},
		{map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2"}, Launch{Rank: 1, Size: 2, By: "MPICH"}, ""},
		// torchrun's variables win over Slurm's (a torchrun inside srun).
		{map[string]string{"RANK": "0", "WORLD_SIZE": "2", "SLURM_PROCID": "1", "SLURM_NTASKS": "4"}, Launch{Size: 2, By: "torchrun"}, ""},
		{map[string]string{"RANK": "4", "WORLD_SIZE": "4"}, Launch{}, "rank 4 of 4"},
		{map[string]string{"RANK": "x", "WORLD_SIZE": "4"}, Launch{}, `RANK="x"`},
		{map[string]string{"MASTER_ADDR": "h", "MASTER_PORT": "99999"}, Launch{}, "not a port"},
	}
	for _, c := range cases {
		got, err := FromEnv(func(k string) string { return c.env[k] })
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want %q", c.env, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%v: %+v, %v; want %+v", c.env, got, err, c.want)
		}
	}
}

// freeAddr returns a loopback address with a port nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
}

// world connects size ranks as goroutines, with the given keys (nil: the
// same for all), and runs f on each; it returns f's errors, or Connect's.
func world(t *testing.T, size int, rv Rendezvous, keys []string, timeout time.Duration, f func(c *Control) error) []error {
	t.Helper()
	errs := make([]error, size)
	var wg sync.WaitGroup
	for r := range size {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := "k"
			if keys != nil {
				key = keys[r]
			}
			c, err := Connect(context.Background(), Launch{Rank: r, Size: size}, rv, key, timeout)
			if err != nil {
				errs[r] = err
				return
			}
			defer c.Close()
			errs[r] = f(c)
		}()
	}
	wg.Wait()
	return errs
}

// TestAllGather exchanges data among ranks met at an address and through
// a file, several times in a row.
func TestAllGather(t *testing.T) {
	for _, rv := range []Rendezvous{{Addr: freeAddr(t)}, {File: filepath.Join(t.TempDir(), "rv")}} {
		errs := world(t, 4, rv, nil, time.Minute, func(c *Control) error {
			for i := range 3 {
				all, err := c.AllGather(context.Background(), []byte(fmt.Sprintf("%d.%d", c.Rank(), i)))
				if err != nil {
					return err
				}
				for r, d := range all {
					if string(d) != fmt.Sprintf("%d.%d", r, i) {
						return fmt.Errorf("exchange %d: rank %d sent %q", i, r, d)
					}
				}
			}
			return nil
		})
		for r, err := range errs {
			if err != nil {
				t.Errorf("%+v: rank %d: %v", rv, r, err)
			}
		}
	}
}

// TestAbortReachesEveryRank stops the run on rank 2 and checks that every
// rank's Done closes with rank 2's reason, and a later AllGather fails.
func TestAbortReachesEveryRank(t *testing.T) {
	errs := world(t, 3, Rendezvous{Addr: freeAddr(t)}, nil, time.Minute, func(c *Control) error {
		if c.Rank() == 2 {
			c.Abort("out of memory")
		}
		select {
		case <-c.Done():
		case <-time.After(time.Minute):
			return errors.New("Done did not close")
		}
		if _, err := c.AllGather(context.Background(), nil); err == nil {
			return errors.New("AllGather after the stop succeeded")
		}
		return c.Err()
	})
	for r, err := range errs {
		var se *StopError
		if !errors.As(err, &se) || se.Rank != 2 || se.Reason != "out of memory" {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// TestRendezvousRefusals: a rank with another key stops the rendezvous
// for all, and a rank that never comes is named after the timeout.
func TestRendezvousRefusals(t *testing.T) {
	errs := world(t, 3, Rendezvous{Addr: freeAddr(t)}, []string{"a", "a", "b"}, time.Minute, func(*Control) error { return nil })
	for r, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "rank 2 runs another command") {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	addr := freeAddr(t)
	_, err := Connect(context.Background(), Launch{Rank: 0, Size: 3}, Rendezvous{Addr: addr}, "k", time.Second)
	if err == nil || !strings.Contains(err.Error(), "missing 1, 2") {
		t.Errorf("rank 0 alone: %v", err)
	}
	_, err = Connect(context.Background(), Launch{Rank: 1, Size: 2}, Rendezvous{Addr: addr}, "k", time.Second)
	if err == nil || !strings.Contains(err.Error(), "could not reach rank 0") {
		t.Errorf("rank 1 alone: %v", err)
	}
	if _, err := Connect(context.Background(), Launch{Rank: 1, Size: 2}, Rendezvous{}, "k", time.Second); err == nil {
		t.Error("two ranks and no rendezvous: no error")
	}
}

// TestTCPBroadcast broadcasts emulator buffers in groups of a 2×2 grid
// and checks every member's copy and the traffic counts.
func TestTCPBroadcast(t *testing.T) {
	errs := world(t, 4, Rendezvous{Addr: freeAddr(t)}, nil, time.Minute, func(c *Control) error {
		dev, err := gpu.Emulator()
		if err != nil {
			return err
		}
		tr, err := NewTCP(context.Background(), c, dev, Options{Timeout: time.Minute})
		if err != nil {
			return err
		}
		defer tr.Close()
		p, q := c.Rank()/2, c.Rank()%2
		row, err := tr.Group(context.Background(), []int{2 * p, 2*p + 1})
		if err != nil {
			return err
		}
		col, err := tr.Group(context.Background(), []int{q, 2 + q})
		if err != nil {
			return err
		}
		for i, g := range []Group{row, col, row} {
			buf, err := cells.Int32s(dev, []int32{int32(c.Rank()), int32(i), 7})
			if err != nil {
				return err
			}
			if err := g.Broadcast(context.Background(), buf, 1); err != nil {
				return err
			}
			got, err := buf.ToInt32s()
			if err != nil {
				return err
			}
			root := 2*p + 1 // the row's member 1
			if g == col {
				root = 2 + q
			}
			if got[0] != int32(root) || got[1] != int32(i) {
				return fmt.Errorf("broadcast %d: got %v from root %d", i, got, root)
			}
		}
		if err := tr.Fence(context.Background()); err != nil {
			return err
		}
		sent, recv := tr.Traffic()
		wantSent := map[int]int64{0: 0, 1: 24, 2: 12, 3: 36}[c.Rank()]
		if sent != wantSent || sent+recv != 36 {
			return fmt.Errorf("sent %d, received %d bytes; want %d sent, 36 in all", sent, recv, wantSent)
		}
		if _, err := tr.Group(context.Background(), []int{0, 0}); err == nil {
			return errors.New("a group naming a rank twice: no error")
		}
		return nil
	})
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}
