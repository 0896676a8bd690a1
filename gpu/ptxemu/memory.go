package ptxemu

import (
	"fmt"
	"sort"
	"sync/atomic"
	"unsafe"
)

// Addresses. Global memory is one arena: device pointers are globalBase
// plus an offset into it, so that 0 (a null pointer) and small integers
// are never valid. The generic address space maps the other state spaces
// into windows above it, as a GPU does: cvta.shared adds sharedWindow to a
// shared-memory offset, cvta.to.shared subtracts it.
const (
	globalBase   uint64 = 1 << 32
	windowShift         = 48
	sharedWindow uint64 = 1 << windowShift
	localWindow  uint64 = 2 << windowShift
	constWindow  uint64 = 3 << windowShift
	paramWindow  uint64 = 4 << windowShift
	windowMask   uint64 = 1<<windowShift - 1

	// allocAlign is the alignment of every allocation, as cuMemAlloc's.
	allocAlign = 256
)

// allocation is one live block of global memory. size is what was asked
// for: an access past it is illegal even inside the alignment padding.
type allocation struct {
	addr, size uint64
	label      string // module variables say which
}

// memory is the global memory of a Device: a growing arena of 64-bit
// words (so that every aligned access can be atomic) and the table of
// live allocations, sorted by address.
type memory struct {
	words  []uint64
	data   []byte // the bytes of words
	allocs []allocation
	used   uint64 // bytes allocated, padding included
	limit  uint64
	// written has one bit per byte of data when uninitialised reads are
	// checked; nil otherwise.
	written []uint32
}

func newMemory(limit uint64, checkInit bool) *memory {
	m := &memory{limit: limit}
	if checkInit {
		m.written = []uint32{}
	}
	return m
}

func roundUp(x, to uint64) uint64 { return (x + to - 1) / to * to }

// alloc reserves size bytes, first fit, and returns the device address.
func (m *memory) alloc(size uint64, label string) (uint64, error) {
	if size == 0 {
		return 0, fmt.Errorf("allocating 0 bytes")
	}
	padded := roundUp(size, allocAlign)
	if m.used+padded > m.limit || padded < size {
		return 0, fmt.Errorf("out of device memory: %d bytes asked, %d of %d free", size, m.limit-m.used, m.limit)
	}
	at, pos := globalBase, 0
	for i, a := range m.allocs {
		if a.addr-at >= padded {
			break
		}
		at, pos = a.addr+roundUp(a.size, allocAlign), i+1
	}
	end := at - globalBase + padded
	if end > uint64(len(m.data)) {
		m.grow(end)
	}
	m.allocs = append(m.allocs, allocation{})
	copy(m.allocs[pos+1:], m.allocs[pos:])
	m.allocs[pos] = allocation{addr: at, size: size, label: label}
	m.used += padded
	if m.written != nil {
		m.markWritten(at-globalBase, padded, false)
	}
	return at, nil
}

// grow makes the arena at least n bytes long, doubling it.
func (m *memory) grow(n uint64) {
	c := uint64(len(m.data))
	for c < n {
		c = max(2*c, 1<<20)
	}
	c = min(c, roundUp(m.limit, 8))
	if c < n {
		c = n
	}
	words := make([]uint64, c/8)
	copy(words, m.words)
	m.words = words
	m.data = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)
	if m.written != nil {
		w := make([]uint32, (len(m.data)+31)/32)
		copy(w, m.written)
		m.written = w
	}
}

// free releases the allocation that starts at addr.
func (m *memory) free(addr uint64) error {
	i := sort.Search(len(m.allocs), func(i int) bool { return m.allocs[i].addr >= addr })
	if i == len(m.allocs) || m.allocs[i].addr != addr {
		return fmt.Errorf("freeing %#x, which is not the start of an allocation", addr)
	}
	m.used -= roundUp(m.allocs[i].size, allocAlign)
	m.allocs = append(m.allocs[:i], m.allocs[i+1:]...)
	return nil
}

// find returns the allocation holding [addr, addr+size).
func (m *memory) find(addr, size uint64) (allocation, bool) {
	i := sort.Search(len(m.allocs), func(i int) bool { return m.allocs[i].addr > addr }) - 1
	if i < 0 {
		return allocation{}, false
	}
	a := m.allocs[i]
	return a, addr-a.addr < a.size && a.size-(addr-a.addr) >= size
}

// describe says where addr lies relative to the nearest allocation, for
// fault messages.
func (m *memory) describe(addr, size uint64) string {
	if addr < 4096 {
		return fmt.Sprintf("address %#x is a null pointer (or an offset from one)", addr)
	}
	if len(m.allocs) == 0 {
		return fmt.Sprintf("address %#x: no device memory is allocated", addr)
	}
	i := sort.Search(len(m.allocs), func(i int) bool { return m.allocs[i].addr > addr })
	var best string
	var dist uint64 = 1<<64 - 1
	if i > 0 {
		a := m.allocs[i-1]
		if addr < a.addr+a.size {
			return fmt.Sprintf("the %d-byte access at %#x runs %d bytes past the end of %s",
				size, addr, addr+size-(a.addr+a.size), a.describe())
		}
		dist = addr - (a.addr + a.size)
		best = fmt.Sprintf("address %#x is %d bytes past the end of %s", addr, dist, a.describe())
	}
	if i < len(m.allocs) {
		a := m.allocs[i]
		if d := a.addr - addr; d < dist {
			best = fmt.Sprintf("address %#x is %d bytes before the start of %s", addr, d, a.describe())
		}
	}
	return best
}

func (a allocation) describe() string {
	s := fmt.Sprintf("the %d-byte allocation at %#x", a.size, a.addr)
	if a.label != "" {
		s += " (" + a.label + ")"
	}
	return s
}

// span checks a host access of n bytes at addr and returns its arena offset.
func (m *memory) span(addr, n uint64, what string) (uint64, error) {
	if _, ok := m.find(addr, n); !ok {
		return 0, fmt.Errorf("%s of %d bytes at %#x: %s", what, n, addr, m.describe(addr, n))
	}
	return addr - globalBase, nil
}

// write copies host bytes to device memory.
func (m *memory) write(addr uint64, src []byte) error {
	off, err := m.span(addr, uint64(len(src)), "copy to the device")
	if err != nil {
		return err
	}
	copy(m.data[off:], src)
	m.markWritten(off, uint64(len(src)), true)
	return nil
}

// read copies device memory to host bytes.
func (m *memory) read(addr uint64, dst []byte) error {
	off, err := m.span(addr, uint64(len(dst)), "copy from the device")
	if err != nil {
		return err
	}
	copy(dst, m.data[off:])
	return nil
}

// memset32 sets count 32-bit words at addr (4-byte aligned) to v.
func (m *memory) memset32(addr uint64, v uint32, count uint64) error {
	if addr%4 != 0 {
		return fmt.Errorf("memset of 32-bit words at %#x, which is not 4-byte aligned", addr)
	}
	off, err := m.span(addr, 4*count, "memset")
	if err != nil {
		return err
	}
	b := m.data[off : off+4*count]
	for i := 0; i < len(b); i += 4 {
		*(*uint32)(unsafe.Pointer(&b[i])) = v
	}
	m.markWritten(off, 4*count, true)
	return nil
}

// markWritten sets (or clears) the written bits of n bytes at arena
// offset off. Kernels call it concurrently, hence the atomics.
func (m *memory) markWritten(off, n uint64, set bool) {
	if m.written == nil {
		return
	}
	for n > 0 {
		bit := off % 32
		k := min(32-bit, n)
		mask := uint32((uint64(1)<<k - 1) << bit)
		if set {
			atomic.OrUint32(&m.written[off/32], mask)
		} else {
			atomic.AndUint32(&m.written[off/32], ^mask)
		}
		off, n = off+k, n-k
	}
}

// isWritten reports whether every byte of an aligned access of size ≤ 8
// bytes at arena offset off was written.
func (m *memory) isWritten(off, size uint64) bool {
	mask := uint32((uint64(1)<<size - 1) << (off % 32))
	return atomic.LoadUint32(&m.written[off/32])&mask == mask
}
