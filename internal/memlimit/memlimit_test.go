package memlimit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRoot writes files (path → content) under a temporary root.
func fakeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const (
	gib = 1 << 30
	mib = 1 << 20
)

// noRlimit is an rlimit source without limits.
func noRlimit(Resource) (uint64, bool) { return 0, false }

const meminfo = "MemTotal:       65536000 kB\nMemFree:  1000 kB\nMemAvailable:   20971520 kB\n" // 20 GiB available

func TestMemAvailableOnly(t *testing.T) {
	s := System{Root: fakeRoot(t, map[string]string{"proc/meminfo": meminfo}), Rlimit: noRlimit}
	b, ok := s.Available()
	if !ok || b.Bytes != 20*gib || b.From != "MemAvailable" {
		t.Fatalf("Available = %v, %v; want 20 GiB from MemAvailable", b, ok)
	}
	// MemAvailable is not a limit on the process: the Go limit comes from
	// the RAM (MemTotal 62.5 GiB), whatever the runtime holds.
	if l, ok := s.GoLimit(5 * gib); !ok || l.Bytes != SoftLimit(65536000<<10) || l.From != "MemTotal 62.5 GiB" {
		t.Fatalf("GoLimit = %v, %v; want %s from MemTotal", l, ok, FormatBytes(SoftLimit(65536000<<10)))
	}
	empty := System{Root: t.TempDir(), Rlimit: noRlimit}
	if _, ok := empty.Available(); ok {
		t.Fatal("Available with no files and no rlimits reported a budget")
	}
	if l, ok := empty.GoLimit(0); ok {
		t.Fatalf("GoLimit with no files and no rlimits = %v", l)
	}
}

func TestCgroupV2(t *testing.T) {
	files := map[string]string{
		"proc/meminfo":        meminfo,
		"proc/self/cgroup":    "0::/user.slice/session-1.scope\n",
		"proc/self/mountinfo": "24 30 0:22 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n",
		// The group has no limit of its own; its parent has 8 GiB, the root none.
		"sys/fs/cgroup/user.slice/session-1.scope/memory.max":     "max\n",
		"sys/fs/cgroup/user.slice/session-1.scope/memory.current": "3221225472\n", // 3 GiB
		"sys/fs/cgroup/user.slice/session-1.scope/memory.stat":    "anon 1\ninactive_file 1073741824\nactive_file 5\n",
		"sys/fs/cgroup/user.slice/memory.max":                     "8589934592\n",
		"sys/fs/cgroup/user.slice/memory.current":                 "9999999999\n",
	}
	s := System{Root: fakeRoot(t, files), Rlimit: noRlimit}
	b, ok := s.Available()
	// 8 GiB limit, 3 GiB used of which 1 GiB is inactive file cache.
	if !ok || b.Bytes != 6*gib {
		t.Fatalf("Available = %v, %v; want 6 GiB", b, ok)
	}
	if b.From != "cgroup v2 memory.max 8 GiB, 2 GiB in use" {
		t.Fatalf("From = %q", b.From)
	}
	// The Go runtime holds 100 MiB of the 2 GiB in use: it may grow by the 6 GiB left.
	if l, ok := s.GoLimit(100 * mib); !ok || l.Bytes != SoftLimit(6*gib+100*mib) || l.From != b.From {
		t.Fatalf("GoLimit = %v, %v; want %s from the cgroup", l, ok, FormatBytes(SoftLimit(6*gib+100*mib)))
	}
}

func TestCgroupV1(t *testing.T) {
	files := map[string]string{
		"proc/meminfo":     meminfo,
		"proc/self/cgroup": "9:name=systemd:/\n4:memory:/docker/abc\n3:cpuset:/\n0::/\n",
		// A container without a cgroup namespace: the mount's root is the group.
		"proc/self/mountinfo": "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n" +
			"35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" +
			"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n",
		"sys/fs/cgroup/memory/memory.limit_in_bytes": "4294967296\n", // 4 GiB
		"sys/fs/cgroup/memory/memory.usage_in_bytes": "1073741824\n",
		"sys/fs/cgroup/memory/memory.stat":           "cache 5\ninactive_file 99\ntotal_inactive_file 536870912\n",
	}
	s := System{Root: fakeRoot(t, files), Rlimit: noRlimit}
	b, ok := s.Available()
	if !ok || b.Bytes != 3*gib+512*mib || b.From != "cgroup v1 memory.limit_in_bytes 4 GiB, 512 MiB in use" {
		t.Fatalf("Available = %v, %v; want 3.5 GiB under the cgroup v1 limit", b, ok)
	}

	// v1 writes a huge number for "no limit": only MemAvailable remains.
	files["sys/fs/cgroup/memory/memory.limit_in_bytes"] = "9223372036854771712\n"
	s = System{Root: fakeRoot(t, files), Rlimit: noRlimit}
	if b, ok := s.Available(); !ok || b.From != "MemAvailable" {
		t.Fatalf("unlimited v1 group: Available = %v, %v", b, ok)
	}
	if l, ok := s.GoLimit(0); !ok || !strings.HasPrefix(l.From, "MemTotal") {
		t.Fatalf("unlimited v1 group: GoLimit = %v, %v; want one from MemTotal", l, ok)
	}
}

func TestRlimits(t *testing.T) {
	files := map[string]string{
		"proc/meminfo":     meminfo,
		"proc/self/status": "Name:\tx\nVmPeak:\t 9 kB\nVmSize:\t 1048576 kB\nVmData:\t 524288 kB\nThreads:\t4\n",
	}
	limits := map[Resource]uint64{AddressSpace: 6 * gib, DataSegment: 5 * gib}
	s := System{Root: fakeRoot(t, files), Rlimit: func(r Resource) (uint64, bool) {
		l, ok := limits[r]
		return l, ok
	}}
	// RLIMIT_AS leaves 6-1 = 5 GiB, RLIMIT_DATA 5-0.5 = 4.5 GiB.
	b, ok := s.Available()
	if !ok || b.Bytes != 4*gib+512*mib || !strings.HasPrefix(b.From, "RLIMIT_DATA") {
		t.Fatalf("Available = %v, %v; want 4.5 GiB under RLIMIT_DATA", b, ok)
	}
	l, ok := s.GoLimit(0)
	if !ok || l.Bytes != SoftLimit(4*gib+512*mib) || l.From != b.From {
		t.Fatalf("GoLimit = %v, %v; want %s under RLIMIT_DATA", l, ok, FormatBytes(SoftLimit(4*gib+512*mib)))
	}
	if want := "4.5 GiB (RLIMIT_DATA (ulimit -d) 5 GiB, 512 MiB in use)"; b.String() != want {
		t.Fatalf("String = %q, want %q", b.String(), want)
	}
	// A limit below what is in use leaves nothing.
	limits[AddressSpace] = 512 * mib
	if b, ok := s.Available(); !ok || b.Bytes != 0 {
		t.Fatalf("exhausted RLIMIT_AS: Available = %v, %v", b, ok)
	}
}

func TestSoftLimit(t *testing.T) {
	for _, c := range []struct{ hard, want uint64 }{
		{8 * gib, 7 * gib},            // an eighth
		{512 * mib, 384 * mib},        // 128 MiB at least
		{200 * mib, 100 * mib},        // never below half
		{80 * gib, 80*gib - 80*gib/8}, // large limits keep an eighth
	} {
		if got := SoftLimit(c.hard); got != c.want {
			t.Errorf("SoftLimit(%s) = %s, want %s", FormatBytes(c.hard), FormatBytes(got), FormatBytes(c.want))
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for b, want := range map[uint64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 8 * gib: "8 GiB", 3 << 50: "3 PiB"} {
		if got := FormatBytes(b); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", b, got, want)
		}
	}
}
