package memlimit

import (
	"os"
	"path"
	"strconv"
	"strings"
)

// unlimited is the value from which a cgroup v1 limit means "no limit"
// (the kernel writes the largest page-aligned int64 there).
const unlimited = 1 << 62

// cgroup finds the memory limit of the process's cgroup, the least over the
// group and its ancestors up to the mount, and the memory the group uses
// less its inactive file cache, which the kernel reclaims before it fails
// an allocation.
func (s System) cgroup() (bound, bool) {
	mounts := s.cgroupMounts()
	data, err := os.ReadFile(s.path("/proc/self/cgroup"))
	if err != nil {
		return bound{}, false
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		// "hierarchy-id:controllers:path"; v2 is "0::path".
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "0" && f[1] == "" {
			if m, ok := mounts["cgroup2"]; ok {
				if b, ok := s.cgroupBound(m, f[2], v2); ok {
					return b, true
				}
			}
			continue
		}
		for _, c := range strings.Split(f[1], ",") {
			if m, ok := mounts["memory"]; ok && c == "memory" {
				if b, ok := s.cgroupBound(m, f[2], v1); ok {
					return b, true
				}
			}
		}
	}
	return bound{}, false
}

// cgroupMount is where a cgroup hierarchy is mounted and which of its groups
// the mount's root is (not "/" in a container without a cgroup namespace).
type cgroupMount struct{ dir, root string }

// cgroupMounts reads /proc/self/mountinfo for the cgroup v2 mount (key
// "cgroup2") and the v1 memory controller's (key "memory").
func (s System) cgroupMounts() map[string]cgroupMount {
	data, err := os.ReadFile(s.path("/proc/self/mountinfo"))
	if err != nil {
		return nil
	}
	mounts := map[string]cgroupMount{}
	for _, line := range strings.Split(string(data), "\n") {
		// "id parent dev root mountpoint opts [optional...] - fstype source superopts"
		pre, post, ok := strings.Cut(line, " - ")
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if !ok || len(pf) < 5 || len(qf) < 3 {
			continue
		}
		m := cgroupMount{dir: pf[4], root: pf[3]}
		switch qf[0] {
		case "cgroup2":
			if _, seen := mounts["cgroup2"]; !seen {
				mounts["cgroup2"] = m
			}
		case "cgroup":
			for _, o := range strings.Split(qf[2], ",") {
				if _, seen := mounts["memory"]; o == "memory" && !seen {
					mounts["memory"] = m
				}
			}
		}
	}
	return mounts
}

// cgroupFiles names a hierarchy's files: limit, usage, and the key of
// inactive file cache in memory.stat.
type cgroupFiles struct{ version, limit, usage, inactive string }

var (
	v2 = cgroupFiles{"cgroup v2", "memory.max", "memory.current", "inactive_file"}
	v1 = cgroupFiles{"cgroup v1", "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"}
)

// cgroupBound reads group's limit (the least up to the mount's root) and
// usage from hierarchy m.
func (s System) cgroupBound(m cgroupMount, group string, files cgroupFiles) (bound, bool) {
	rel := "/"
	if r, ok := strings.CutPrefix(path.Clean(group), path.Clean(m.root)); ok {
		rel = path.Clean("/" + r)
	}
	var b bound
	found := false
	usageRead := false
	for dir := rel; ; dir = path.Dir(dir) {
		full := s.path(path.Join(m.dir, dir))
		if limit, ok := readCount(path.Join(full, files.limit)); ok && limit < unlimited && (!found || limit < b.limit) {
			b.limit, found = limit, true
		}
		if !usageRead {
			if used, ok := readCount(path.Join(full, files.usage)); ok {
				usageRead = true
				b.used = used - min(used, statField(path.Join(full, "memory.stat"), files.inactive))
			}
		}
		if dir == "/" {
			break
		}
	}
	if !found {
		return bound{}, false
	}
	b.name, b.hard = files.version+" "+files.limit, true
	return b, true
}

// readCount reads a file holding one count; "max" (cgroup v2's "no limit")
// is not a count.
func readCount(file string) (uint64, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	x, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	return x, err == nil
}

// statField reads one "key value" line of a memory.stat file (0 if absent).
func statField(file, key string) uint64 {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			x, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return x
		}
	}
	return 0
}
