// Package memlimit finds how much memory the process may still allocate,
// and the Go memory limit it should run under: the machine's MemAvailable,
// the room left under its cgroup's memory limit (cgroup v2 memory.max or
// v1 memory.limit_in_bytes) and under its address-space and data-segment
// rlimits (ulimit -v, ulimit -d), whichever is least. Solvers and readers
// consult it before allocating what a size or a header asks for, so that
// too large a request is an error rather than the end of the process.
package memlimit

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Budget is an amount of memory and what sets it.
type Budget struct {
	Bytes uint64
	// From names the source, e.g. "cgroup v2 memory.max 8 GiB, 7.5 GiB
	// in use" or "MemAvailable".
	From string
}

// String formats the budget as "7.5 GiB (FROM)".
func (b Budget) String() string { return FormatBytes(b.Bytes) + " (" + b.From + ")" }

// Resource is an rlimit that bounds the process's memory.
type Resource int

const (
	// AddressSpace is RLIMIT_AS (ulimit -v): the process's virtual size.
	AddressSpace Resource = iota
	// DataSegment is RLIMIT_DATA (ulimit -d): its data segment and private
	// anonymous mappings.
	DataSegment
)

// System reads the limits from a file system root and an rlimit source; its
// zero value reads the running process's.
type System struct {
	// Root is prepended to the /proc and /sys paths read; "" is "/".
	Root string
	// Rlimit returns a resource's soft limit, ok false when there is none;
	// nil asks the operating system (getrlimit).
	Rlimit func(Resource) (limit uint64, ok bool)
}

// Available returns how much memory the running process can still allocate.
func Available() (Budget, bool) { return System{}.Available() }

// GoLimit is System.GoLimit for the running process.
func GoLimit(goBytes uint64) (Budget, bool) { return System{}.GoLimit(goBytes) }

// bound is one limit on memory and the part of it in use.
type bound struct {
	limit, used uint64
	name        string
	hard        bool // a limit on this process (cgroup, rlimit), not the machine's free memory
}

// room is what is left under b.
func (b bound) room() Budget {
	if b.used == 0 {
		return Budget{b.limit, b.name}
	}
	left := uint64(0)
	if b.limit > b.used {
		left = b.limit - b.used
	}
	return Budget{left, fmt.Sprintf("%s %s, %s in use", b.name, FormatBytes(b.limit), FormatBytes(b.used))}
}

// Available returns the least room left under the machine's MemAvailable,
// the cgroup's limit and the rlimits; ok is false when none of them is known.
func (s System) Available() (Budget, bool) {
	var best Budget
	ok := false
	for _, b := range s.bounds() {
		if r := b.room(); !ok || r.Bytes < best.Bytes {
			best, ok = r, true
		}
	}
	return best, ok
}

// GoLimit returns the Go soft memory limit (debug.SetMemoryLimit) for a
// process whose Go runtime holds goBytes now: those bytes plus the least
// room left under the cgroup's limit and the rlimits, less SoftLimit's
// headroom. What other code holds (C libraries, the executable's mappings,
// address space reserved but unused) is thus left out of the Go runtime's
// share. A process with no such limit gets SoftLimit of the machine's RAM
// (MemTotal): the runtime then collects harder before the machine runs
// out, not after. ok is false when neither is known.
func (s System) GoLimit(goBytes uint64) (Budget, bool) {
	var least Budget
	ok := false
	for _, b := range s.bounds() {
		if r := b.room(); b.hard && (!ok || r.Bytes < least.Bytes) {
			least, ok = r, true
		}
	}
	if !ok {
		if total, ok := s.kbFields("/proc/meminfo")["MemTotal"]; ok {
			return Budget{SoftLimit(total), "MemTotal " + FormatBytes(total)}, true
		}
		return Budget{}, false
	}
	return Budget{SoftLimit(goBytes + least.Bytes), least.From}, true
}

// bounds collects every limit that can be read.
func (s System) bounds() []bound {
	var bs []bound
	if avail, ok := s.memAvailable(); ok {
		bs = append(bs, bound{limit: avail, name: "MemAvailable"})
	}
	if b, ok := s.cgroup(); ok {
		bs = append(bs, b)
	}
	rlimit := s.Rlimit
	if rlimit == nil {
		rlimit = getrlimit
	}
	status := s.procStatus()
	for _, r := range []struct {
		res        Resource
		name, used string
	}{
		{AddressSpace, "RLIMIT_AS (ulimit -v)", "VmSize"},
		{DataSegment, "RLIMIT_DATA (ulimit -d)", "VmData"},
	} {
		if limit, ok := rlimit(r.res); ok {
			bs = append(bs, bound{limit: limit, used: status[r.used], name: r.name, hard: true})
		}
	}
	return bs
}

// path joins a system path to the root.
func (s System) path(p string) string {
	if s.Root == "" {
		return p
	}
	return filepath.Join(s.Root, p)
}

// memAvailable reads MemAvailable from /proc/meminfo.
func (s System) memAvailable() (uint64, bool) {
	kv := s.kbFields("/proc/meminfo")
	v, ok := kv["MemAvailable"]
	return v, ok
}

// procStatus reads the kB fields (VmSize, VmData) of /proc/self/status.
func (s System) procStatus() map[string]uint64 { return s.kbFields("/proc/self/status") }

// kbFields reads "Name: N kB" lines into bytes by name.
func (s System) kbFields(file string) map[string]uint64 {
	data, err := os.ReadFile(s.path(file))
	if err != nil {
		return nil
	}
	kv := map[string]uint64{}
	for _, line := range strings.Split(string(data), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		f := strings.Fields(rest)
		if !ok || len(f) != 2 || f[1] != "kB" {
			continue
		}
		if kb, err := strconv.ParseUint(f[0], 10, 64); err == nil && kb <= math.MaxUint64/1024 {
			kv[name] = kb * 1024
		}
	}
	return kv
}

// FormatBytes formats a byte count with a binary unit, e.g. "5.38 GiB".
func FormatBytes(b uint64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	f := float64(b)
	u := 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d B", b)
	}
	return fmt.Sprintf("%.3g %s", f, units[u])
}

// SoftLimit is the Go memory limit (debug.SetMemoryLimit) to run under a
// hard limit of hard bytes: an eighth less, and at least 128 MiB less, for
// what the Go runtime does not count (thread stacks outside the heap, C
// libraries, the executable's own mappings), but never under half of it.
func SoftLimit(hard uint64) uint64 {
	headroom := max(hard/8, 128<<20)
	if headroom > hard/2 {
		return hard - hard/2
	}
	return hard - headroom
}
