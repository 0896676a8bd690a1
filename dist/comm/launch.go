package comm

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Launch is what a rank learns from the variables its launcher set: its
// rank, the number of ranks, its rank among those of its host (which picks
// its GPU), and where rank 0 waits for the others.
type Launch struct {
	Rank, Size, LocalRank int
	// By names the launcher whose variables gave the rank: "torchrun",
	// "Slurm", "Open MPI", "MPICH", or "none" for a single rank.
	By string
	// Addr is MASTER_ADDR:MASTER_PORT where set (the port defaults to
	// DefaultPort), "" otherwise: the rendezvous then needs a file.
	Addr string
}

// DefaultPort is MASTER_PORT's default, as torchrun's.
const DefaultPort = 29500

// launchers are the variables of each launcher, in the order they are
// tried: rank, size and local rank.
var launchers = []struct{ by, rank, size, local string }{
	{"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"},
	{"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
	{"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
	{"MPICH", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
}

// FromEnv reads the launch from getenv (os.Getenv): the first launcher
// whose rank and size variables are both set, or a single rank (rank 0 of
// 1) when none is. A local rank that is not set is taken as 0.
// MASTER_ADDR and MASTER_PORT give Addr whatever the launcher.
func FromEnv(getenv func(string) string) (Launch, error) {
	l := Launch{Size: 1, By: "none"}
	for _, v := range launchers {
		rs, ss := getenv(v.rank), getenv(v.size)
		if rs == "" || ss == "" {
			continue
		}
		var err error
		num := func(name, s string) int {
			k, e := strconv.Atoi(strings.TrimSpace(s))
			if e != nil && err == nil {
				err = fmt.Errorf("comm: %s=%q (%s): not a number", name, s, v.by)
			}
			return k
		}
		l = Launch{By: v.by, Rank: num(v.rank, rs), Size: num(v.size, ss)}
		if s := getenv(v.local); s != "" {
			l.LocalRank = num(v.local, s)
		}
		if err != nil {
			return l, err
		}
		if l.Size < 1 || l.Rank < 0 || l.Rank >= l.Size || l.LocalRank < 0 {
			return l, fmt.Errorf("comm: %s gives rank %d of %d (local rank %d)", v.by, l.Rank, l.Size, l.LocalRank)
		}
		break
	}
	if host := getenv("MASTER_ADDR"); host != "" {
		port := DefaultPort
		if s := getenv("MASTER_PORT"); s != "" {
			k, err := strconv.Atoi(s)
			if err != nil || k < 1 || k > 65535 {
				return l, fmt.Errorf("comm: MASTER_PORT=%q is not a port", s)
			}
			port = k
		}
		l.Addr = net.JoinHostPort(host, strconv.Itoa(port))
	}
	return l, nil
}

// String describes the launch, e.g. "rank 3 of 8 (local rank 3, from
// Slurm)".
func (l Launch) String() string {
	return fmt.Sprintf("rank %d of %d (local rank %d, from %s)", l.Rank, l.Size, l.LocalRank, l.By)
}

// LauncherVars lists the variables FromEnv reads: every launcher's, and
// MASTER_ADDR and MASTER_PORT.
func LauncherVars() []string {
	vars := []string{"MASTER_ADDR", "MASTER_PORT"}
	for _, v := range launchers {
		vars = append(vars, v.rank, v.size, v.local)
	}
	return vars
}
