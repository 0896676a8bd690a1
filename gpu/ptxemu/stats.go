package ptxemu

import (
	"fmt"
	"strings"
	"time"
)

// space is a PTX state space.
type space uint8

const (
	spaceGlobal space = iota
	spaceShared
	spaceLocal
	spaceConst
	spaceParam
	spaceGeneric // resolved per access to one of the above
	numSpaces    = int(spaceGeneric)
)

var spaceNames = [...]string{"global", "shared", "local", "const", "param", "generic"}

// String names the state space as PTX does, without the dot.
func (s space) String() string { return spaceNames[s] }

// SpaceNames are the state spaces Stats.Loaded and Stats.Stored count, in
// index order.
var SpaceNames = spaceNames[:numSpaces]

// Stats count what launches did. They stand in for the GPU time a real
// device would report: the interpreter's own time (Wall) says nothing
// about a GPU's.
type Stats struct {
	Launches uint64
	Blocks   uint64
	Warps    uint64
	Threads  uint64
	// Instructions counts warp instructions issued (each executed once for
	// its active lanes); ThreadInstructions counts the lanes that executed
	// them (guard predicate true), as a profiler's "thread instructions".
	Instructions       uint64
	ThreadInstructions uint64
	// Loaded and Stored are bytes moved by loads and stores (atomics
	// included) per state space, indexed like SpaceNames; generic accesses
	// count in the space they resolve to.
	Loaded, Stored [numSpaces]uint64
	Atomics        uint64 // atomic and reduction operations, per thread
	Barriers       uint64 // bar.sync completions, per block
	BarrierWaits   uint64 // threads arriving at bar.sync
	WarpSyncs      uint64 // warp-synchronous instructions (bar.warp.sync, shfl.sync, vote.sync) completed, per warp
	// Wall is the host time the launches took: not a GPU time.
	Wall time.Duration
}

// add accumulates o into s.
func (s *Stats) add(o *Stats) {
	s.Launches += o.Launches
	s.Blocks += o.Blocks
	s.Warps += o.Warps
	s.Threads += o.Threads
	s.Instructions += o.Instructions
	s.ThreadInstructions += o.ThreadInstructions
	for i := range s.Loaded {
		s.Loaded[i] += o.Loaded[i]
		s.Stored[i] += o.Stored[i]
	}
	s.Atomics += o.Atomics
	s.Barriers += o.Barriers
	s.BarrierWaits += o.BarrierWaits
	s.WarpSyncs += o.WarpSyncs
	s.Wall += o.Wall
}

// Sub returns the counts of s minus those of o: the work between two
// readings of Device.Stats.
func (s Stats) Sub(o Stats) Stats {
	r := s
	r.Launches -= o.Launches
	r.Blocks -= o.Blocks
	r.Warps -= o.Warps
	r.Threads -= o.Threads
	r.Instructions -= o.Instructions
	r.ThreadInstructions -= o.ThreadInstructions
	for i := range r.Loaded {
		r.Loaded[i] -= o.Loaded[i]
		r.Stored[i] -= o.Stored[i]
	}
	r.Atomics -= o.Atomics
	r.Barriers -= o.Barriers
	r.BarrierWaits -= o.BarrierWaits
	r.WarpSyncs -= o.WarpSyncs
	r.Wall -= o.Wall
	return r
}

// String summarises the counts on one line.
func (s Stats) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d launches, %d blocks, %d warp instructions (%d thread instructions)",
		s.Launches, s.Blocks, s.Instructions, s.ThreadInstructions)
	for i, name := range SpaceNames {
		if s.Loaded[i] != 0 || s.Stored[i] != 0 {
			fmt.Fprintf(&sb, ", %s %d B loaded / %d B stored", name, s.Loaded[i], s.Stored[i])
		}
	}
	fmt.Fprintf(&sb, ", %d atomics, %d barriers, %d warp syncs, interpreter time %v", s.Atomics, s.Barriers, s.WarpSyncs, s.Wall)
	return sb.String()
}
