package cells

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/driver"
	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/internal/memlimit"
)

// Device buffers. Every call holds the device (gpu.Device.Hold), so it
// never interleaves with a variant's run.

// ElemType is the element type of a Buffer.
type ElemType int

// The element types of a Buffer.
const (
	Int32 ElemType = iota + 1
	Uint32
	Float32
	Float64
)

// String names the type as Go does: "int32", "uint32", "float32", "float64".
func (t ElemType) String() string {
	switch t {
	case Int32:
		return "int32"
	case Uint32:
		return "uint32"
	case Float32:
		return "float32"
	case Float64:
		return "float64"
	}
	return fmt.Sprintf("ElemType(%d)", int(t))
}

// Size returns the bytes of one element.
func (t ElemType) Size() int {
	if t == Float64 {
		return 8
	}
	return 4
}

// valid reports whether t is one of the four element types.
func (t ElemType) valid() bool { return t >= Int32 && t <= Float64 }

// Buffer is device memory holding Len() values of one ElemType, owned by
// one Device: cudaMalloc'd memory with its length and type. Pass it to a
// kernel as a pointer argument; copy it back with ToInt32s and the like.
// A Buffer made before the device's context was reset (after a kernel
// fault) is gone: using it is an error that says so.
type Buffer struct {
	dev   *gpu.Device
	ptr   gpu.DevicePtr
	n     int
	typ   ElemType
	epoch int
	freed bool
	// variable names the module variable the buffer is ("mod.devData");
	// such a buffer lives as long as its module and cannot be freed.
	variable string
}

// Len returns the number of elements.
func (b *Buffer) Len() int { return b.n }

// Type returns the element type.
func (b *Buffer) Type() ElemType { return b.typ }

// Bytes returns the size in bytes.
func (b *Buffer) Bytes() uint64 { return uint64(b.n) * uint64(b.typ.Size()) }

// Ptr returns the device address, for a kernel argument of a struct or
// for pointer arithmetic (a *Buffer argument passes the same address).
func (b *Buffer) Ptr() gpu.DevicePtr { return b.ptr }

// String describes the buffer, e.g. "cells.Buffer float32[1024] on
// NVIDIA H100 80GB HBM3".
func (b *Buffer) String() string {
	if b == nil {
		return "cells.Buffer <nil>"
	}
	s := fmt.Sprintf("cells.Buffer %s[%d] on %s", b.typ, b.n, b.dev.Info().Name)
	if b.variable != "" {
		s += " (variable " + b.variable + ")"
	}
	switch {
	case b.freed:
		s += " (freed)"
	case b.epoch != b.dev.Epoch():
		s += " (lost in a context reset)"
	}
	return s
}

// cellContext is a driver's context with the copies of any element type
// and the module variables that this package needs.
type cellContext interface {
	driver.Context
	driver.ByteContext
}

// byteContext returns the held device's context as this package needs it.
func byteContext(h *gpu.Hold) (cellContext, error) {
	c, err := h.Context()
	if err != nil {
		return nil, err
	}
	bc, ok := c.(cellContext)
	if !ok {
		return nil, fmt.Errorf("gpu: device %s: its driver does not support the cell API (buffers, modules, launches)", h.Device().Info().Name)
	}
	return bc, nil
}

// use checks that b can be used now: not freed, not lost. Its device is
// held.
func (b *Buffer) use() error {
	switch {
	case b == nil:
		return fmt.Errorf("gpu: nil *Buffer")
	case b.freed:
		return fmt.Errorf("gpu: %s: used after Free", b)
	case b.epoch != b.dev.Epoch():
		return fmt.Errorf("gpu: %s: the buffer was lost when the device's context was reset after a kernel fault; allocate it again", b)
	}
	return nil
}

// ready returns the context through which b's memory is reached, when the
// device has one for this package and b can be used now (use). h holds
// b's device.
func (b *Buffer) ready(h *gpu.Hold) (cellContext, error) {
	c, err := byteContext(h)
	if err != nil {
		return nil, err
	}
	if err := b.use(); err != nil {
		return nil, err
	}
	return c, nil
}

// NewBuffer allocates n zero-filled values of type t on device d.
func NewBuffer(d *gpu.Device, t ElemType, n int) (*Buffer, error) {
	h := d.Hold()
	defer h.Release()
	return newBuffer(h, t, n)
}

// newBuffer is NewBuffer on the held device.
func newBuffer(h *gpu.Hold, t ElemType, n int) (*Buffer, error) {
	if !t.valid() {
		return nil, fmt.Errorf("gpu: NewBuffer: unknown element type %v (want cells.Int32, cells.Uint32, cells.Float32 or cells.Float64)", t)
	}
	if n < 0 || uint64(n) > math.MaxInt64/8 {
		return nil, fmt.Errorf("gpu: NewBuffer: %d elements of %s", n, t)
	}
	c, err := byteContext(h)
	if err != nil {
		return nil, err
	}
	d := h.Device()
	bytes := uint64(max(n, 1)) * uint64(t.Size())
	h.FreeSpares()
	if free, total, err := c.MemInfo(); err == nil && bytes > free {
		return nil, fmt.Errorf("gpu: NewBuffer: %s[%d] needs %s, but %s has %s free of %s",
			t, n, graph.FormatBytes(bytes), d.Info().Name, graph.FormatBytes(free), graph.FormatBytes(total))
	}
	p, err := c.Alloc(bytes)
	if err != nil {
		return nil, cellErr(h, err, "allocating %s[%d] (%s)", t, n, graph.FormatBytes(bytes))
	}
	if err := c.Memset32(p, 0, bytes/4); err != nil {
		_ = c.Free(p)
		return nil, cellErr(h, err, "zeroing a new buffer")
	}
	return &Buffer{dev: d, ptr: p, n: n, typ: t, epoch: d.Epoch()}, nil
}

// upload allocates a buffer of type t on d holding the bytes of a host
// slice.
func upload(d *gpu.Device, t ElemType, n int, data []byte) (*Buffer, error) {
	h := d.Hold()
	defer h.Release()
	b, err := newBuffer(h, t, n)
	if err != nil {
		return nil, err
	}
	if err := b.copyIn(h, data); err != nil {
		if c, cerr := h.Context(); cerr == nil {
			_ = c.Free(b.ptr)
		}
		return nil, err
	}
	return b, nil
}

// bytesOf views a slice's elements as bytes (the host is little endian,
// as the device is).
func bytesOf[T int32 | uint32 | float32 | float64](s []T) []byte {
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// Int32s allocates a buffer on d holding a copy of src.
func Int32s(d *gpu.Device, src []int32) (*Buffer, error) {
	return upload(d, Int32, len(src), bytesOf(src))
}

// Uint32s allocates a buffer on d holding a copy of src.
func Uint32s(d *gpu.Device, src []uint32) (*Buffer, error) {
	return upload(d, Uint32, len(src), bytesOf(src))
}

// Float32s allocates a buffer on d holding a copy of src.
func Float32s(d *gpu.Device, src []float32) (*Buffer, error) {
	return upload(d, Float32, len(src), bytesOf(src))
}

// Float64s allocates a buffer on d holding a copy of src.
func Float64s(d *gpu.Device, src []float64) (*Buffer, error) {
	return upload(d, Float64, len(src), bytesOf(src))
}

// GraphCSR copies g's CSR arrays to device d as int32 buffers: offsets
// (n+1 values: vertex u's arcs are offsets[u] to offsets[u+1]-1), targets
// and weights (m values each).
func GraphCSR(d *gpu.Device, g *graph.Graph) (offsets, targets, weights *Buffer, err error) {
	if g == nil {
		return nil, nil, nil, fmt.Errorf("gpu: GraphCSR: nil graph")
	}
	if offsets, err = Int32s(d, g.Offsets()); err != nil {
		return nil, nil, nil, err
	}
	if targets, err = Int32s(d, g.Targets()); err != nil {
		_ = offsets.Free()
		return nil, nil, nil, err
	}
	if weights, err = Int32s(d, g.Weights()); err != nil {
		_ = offsets.Free()
		_ = targets.Free()
		return nil, nil, nil, err
	}
	return offsets, targets, weights, nil
}

// GraphMatrix copies g's n×n weight matrix to device d, row-major int32:
// the lightest arc's weight where there is an arc, graph.Inf where there is
// none, 0 on the diagonal (a negative self-loop's weight if it has one) —
// the matrix the Floyd-Warshall variants start from.
func GraphMatrix(d *gpu.Device, g *graph.Graph) (*Buffer, error) {
	if g == nil {
		return nil, fmt.Errorf("gpu: GraphMatrix: nil graph")
	}
	if err := graph.CheckMatrixSize(g.N(), 1); err != nil {
		return nil, fmt.Errorf("gpu: GraphMatrix: %w", err)
	}
	return Int32s(d, g.Dense())
}

// copyIn writes data (the buffer's size) to the device, which h holds.
func (b *Buffer) copyIn(h *gpu.Hold, data []byte) error {
	c, err := b.ready(h)
	if err != nil {
		return err
	}
	return cellErr(h, c.CopyInBytes(b.ptr, data), "copying %d bytes to %s", len(data), b)
}

// copyOut reads the buffer into data (its size); h holds its device.
func (b *Buffer) copyOut(h *gpu.Hold, data []byte) error {
	c, err := b.ready(h)
	if err != nil {
		return err
	}
	return cellErr(h, c.CopyOutBytes(data, b.ptr), "copying %s back", b)
}

// download copies the buffer into a new slice of T, if t is its type.
func download[T int32 | uint32 | float32 | float64](b *Buffer, t ElemType) ([]T, error) {
	if b == nil {
		return nil, fmt.Errorf("gpu: nil *Buffer")
	}
	if b.typ != t {
		return nil, fmt.Errorf("gpu: To%ss on %s: the buffer holds %s, not %s (use To%ss)", title(t), b, b.typ, t, title(b.typ))
	}
	if err := memlimit.Check(uint64(b.n) * uint64(unsafe.Sizeof(T(0)))); err != nil {
		return nil, fmt.Errorf("gpu: To%ss on %s: the host copy would %w", title(t), b, err)
	}
	h := b.dev.Hold()
	defer h.Release()
	out := make([]T, b.n)
	if err := b.copyOut(h, bytesOf(out)); err != nil {
		return nil, err
	}
	return out, nil
}

// replace copies src into the buffer, if t is its type and the lengths match.
func replace[T int32 | uint32 | float32 | float64](b *Buffer, t ElemType, src []T) error {
	if b == nil {
		return fmt.Errorf("gpu: nil *Buffer")
	}
	if b.typ != t {
		return fmt.Errorf("gpu: Copy%ss into %s: the buffer holds %s, not %s (use Copy%ss)", title(t), b, b.typ, t, title(b.typ))
	}
	if len(src) != b.n {
		return fmt.Errorf("gpu: Copy%ss: %d values into %s, which holds %d", title(t), len(src), b, b.n)
	}
	h := b.dev.Hold()
	defer h.Release()
	return b.copyIn(h, bytesOf(src))
}

// title is the type's name as the method names spell it ("Float32").
func title(t ElemType) string {
	s := t.String()
	return string(s[0]-'a'+'A') + s[1:]
}

// ToInt32s copies an Int32 buffer back to the host.
func (b *Buffer) ToInt32s() ([]int32, error) { return download[int32](b, Int32) }

// ToUint32s copies a Uint32 buffer back to the host.
func (b *Buffer) ToUint32s() ([]uint32, error) { return download[uint32](b, Uint32) }

// ToFloat32s copies a Float32 buffer back to the host.
func (b *Buffer) ToFloat32s() ([]float32, error) { return download[float32](b, Float32) }

// ToFloat64s copies a Float64 buffer back to the host.
func (b *Buffer) ToFloat64s() ([]float64, error) { return download[float64](b, Float64) }

// CopyInt32s copies src into an Int32 buffer of the same length.
func (b *Buffer) CopyInt32s(src []int32) error { return replace(b, Int32, src) }

// CopyUint32s copies src into a Uint32 buffer of the same length.
func (b *Buffer) CopyUint32s(src []uint32) error { return replace(b, Uint32, src) }

// CopyFloat32s copies src into a Float32 buffer of the same length.
func (b *Buffer) CopyFloat32s(src []float32) error { return replace(b, Float32, src) }

// CopyFloat64s copies src into a Float64 buffer of the same length.
func (b *Buffer) CopyFloat64s(src []float64) error { return replace(b, Float64, src) }

// Fill sets every element to v converted to the element type (as Go
// converts: fractions of an integer type are truncated). A value outside
// an integer type's range is an error.
func (b *Buffer) Fill(v float64) error {
	if b == nil {
		return fmt.Errorf("gpu: nil *Buffer")
	}
	var word uint64
	switch b.typ {
	case Int32:
		if v < math.MinInt32 || v > math.MaxInt32 || math.IsNaN(v) {
			return fmt.Errorf("gpu: Fill(%v) on %s: not an int32", v, b)
		}
		word = uint64(uint32(int32(v)))
	case Uint32:
		if v < 0 || v > math.MaxUint32 || math.IsNaN(v) {
			return fmt.Errorf("gpu: Fill(%v) on %s: not a uint32", v, b)
		}
		word = uint64(uint32(v))
	case Float32:
		word = uint64(math.Float32bits(float32(v)))
	case Float64:
		word = math.Float64bits(v)
	}
	h := b.dev.Hold()
	defer h.Release()
	c, err := b.ready(h)
	if err != nil {
		return err
	}
	if b.typ != Float64 {
		return cellErr(h, c.Memset32(b.ptr, uint32(word), uint64(b.n)), "filling %s", b)
	}
	if err := memlimit.Check(uint64(b.n) * 8); err != nil {
		return fmt.Errorf("gpu: filling %s: the host copy would %w", b, err)
	}
	data := make([]float64, b.n)
	for i := range data {
		data[i] = v
	}
	return b.copyIn(h, bytesOf(data))
}

// Free releases the buffer's device memory. Freeing it again does nothing;
// any other use after Free is an error. A module variable (Module.Var)
// cannot be freed: it lives as long as its module.
func (b *Buffer) Free() error {
	if b == nil {
		return nil
	}
	if b.variable != "" {
		return fmt.Errorf("gpu: Free: %s is a module variable; it lives as long as its module", b)
	}
	h := b.dev.Hold()
	defer h.Release()
	if b.freed {
		return nil
	}
	b.freed = true
	c, err := h.Context()
	if b.epoch != b.dev.Epoch() || err != nil {
		return nil // its context, and the memory with it, is gone already
	}
	return cellErr(h, c.Free(b.ptr), "freeing %s", b)
}
