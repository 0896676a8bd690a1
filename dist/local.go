package dist

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/pathnotes/pathnotes/dist/comm"
)

// SpawnLocal starts n ranks on this host, as a cluster's launcher would:
// argv (a program and its arguments) n times, each with torchrun's
// variables in its environment (RANK, WORLD_SIZE, LOCAL_RANK,
// MASTER_ADDR=127.0.0.1 and a free MASTER_PORT) and NCCL_NVLS_ENABLE=0,
// each line of their output prefixed with "[rank r] ". An interrupt or a
// termination of this process is passed on to every rank (which stops
// the run); it waits for all of them and fails if any failed.
func SpawnLocal(ctx context.Context, n int, argv, env []string, stdout, stderr io.Writer) error {
	if n < 1 {
		return fmt.Errorf("dist: %d local ranks", n)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var mu sync.Mutex // one line at a time on each writer
	cmds := make([]*exec.Cmd, n)
	var copies sync.WaitGroup
	for r := range n {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(withoutLaunchers(env), "RANK="+strconv.Itoa(r), "WORLD_SIZE="+strconv.Itoa(n),
			"LOCAL_RANK="+strconv.Itoa(r), "MASTER_ADDR=127.0.0.1", "MASTER_PORT="+strconv.Itoa(port), "NCCL_NVLS_ENABLE=0")
		prefix := fmt.Sprintf("[rank %d] ", r)
		outR, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		errR, err := cmd.StderrPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			killAll(cmds[:r])
			return fmt.Errorf("dist: starting rank %d: %w", r, err)
		}
		cmds[r] = cmd
		for _, p := range []struct {
			r io.Reader
			w io.Writer
		}{{outR, stdout}, {errR, stderr}} {
			copies.Add(1)
			go func() {
				defer copies.Done()
				sc := bufio.NewScanner(p.r)
				sc.Buffer(make([]byte, 64<<10), 1<<20)
				for sc.Scan() {
					mu.Lock()
					fmt.Fprintln(p.w, prefix+sc.Text())
					mu.Unlock()
				}
			}()
		}
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	stop := context.AfterFunc(ctx, func() { sigs <- os.Interrupt })
	defer stop()
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		for {
			select {
			case s := <-sigs:
				for _, c := range cmds {
					_ = c.Process.Signal(s)
				}
			case <-quit:
				return
			}
		}
	}()
	copies.Wait()
	var failed []string
	for r, c := range cmds {
		if err := c.Wait(); err != nil {
			failed = append(failed, fmt.Sprintf("rank %d: %v", r, err))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("dist: %d of %d local ranks failed (%s)", len(failed), n, strings.Join(failed, "; "))
	}
	return nil
}

// killAll kills the ranks started so far.
func killAll(cmds []*exec.Cmd) {
	for _, c := range cmds {
		_ = c.Process.Kill()
		_ = c.Wait()
	}
}

// withoutLaunchers drops the variables of other launchers from env, so
// that the ranks read torchrun's.
func withoutLaunchers(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(comm.LauncherVars(), name) && name != "NCCL_NVLS_ENABLE" {
			out = append(out, kv)
		}
	}
	return out
}
