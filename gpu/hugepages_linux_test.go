//go:build linux

package gpu

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unsafe"
)

// TestAdviseHuge advises a 9 MiB slice that starts off a 2 MiB boundary:
// its contents stay, and where the kernel has transparent huge pages the
// mapping of its whole 2 MiB pages carries the advice ("hg" in
// /proc/self/smaps' VmFlags), while a slice under 2 MiB gets none.
func TestAdviseHuge(t *testing.T) {
	buf := make([]byte, 12<<20)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	off := int((2<<20)-base%(2<<20))%(2<<20) + 4096 // 4 KiB past a boundary
	b := buf[off : off+9<<20]
	for i := range b {
		b[i] = byte(i * 7)
	}
	adviseHuge(b)
	adviseHuge(b[:1<<20])
	for i := range b {
		if b[i] != byte(i*7) {
			t.Fatalf("byte %d changed", i)
		}
	}
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		return // no transparent huge pages: the advice has nothing to set
	}
	start := base + uintptr(off)
	inner := (start + (2 << 20) - 1) &^ ((2 << 20) - 1)
	flags, err := vmFlags(inner)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the mapping at %#x has VmFlags %q, without hg", inner, flags)
	}
}

// vmFlags returns the VmFlags line of the mapping in /proc/self/smaps that
// holds address a.
func vmFlags(a uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= a && a < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping holds %#x", a)
}

// BenchmarkFreshPages times the first touch of memory the process has
// never touched: each iteration maps 4 GiB afresh, advises it (huge) or not
// (small), touches one byte a 4 KiB page on the given number of
// goroutines, and unmaps it. It measures what a result that lands on new
// pages costs the host, whichever copy touches them.
func BenchmarkFreshPages(b *testing.B) {
	const size = 4 << 30
	for _, huge := range []bool{false, true} {
		for _, workers := range []int{1, 4, runtime.GOMAXPROCS(0)} {
			name := map[bool]string{false: "small", true: "huge"}[huge]
			b.Run(fmt.Sprintf("%s/workers=%d", name, workers), func(b *testing.B) {
				b.SetBytes(size)
				for range b.N {
					m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
					if err != nil {
						b.Fatal(err)
					}
					if huge {
						adviseHuge(m)
					}
					var wg sync.WaitGroup
					for w := range workers {
						wg.Go(func() {
							for p := w * (size / 4096) / workers; p < (w+1)*(size/4096)/workers; p++ {
								m[p*4096] = 1
							}
						})
					}
					wg.Wait()
					if err := syscall.Munmap(m); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// vmstat reads the named counters of /proc/vmstat (a counter the kernel
// does not have reads 0); it returns nil where the file cannot be read.
func vmstat(names ...string) map[string]int64 {
	b, err := os.ReadFile("/proc/vmstat")
	if err != nil {
		return nil
	}
	want := map[string]int64{}
	for _, n := range names {
		want[n] = 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		var name string
		var v int64
		if k, _ := fmt.Sscanf(line, "%s %d", &name, &v); k == 2 {
			if _, ok := want[name]; ok {
				want[name] = v
			}
		}
	}
	return want
}

// TestVmstat reads counters that every Linux kernel keeps.
func TestVmstat(t *testing.T) {
	got := vmstat("pgfault", "no_such_counter")
	if got == nil {
		t.Fatal("/proc/vmstat could not be read")
	}
	if got["pgfault"] <= 0 || got["no_such_counter"] != 0 {
		t.Errorf("vmstat = %v, want pgfault > 0 and no_such_counter 0", got)
	}
}
