package gpu

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/pathnotes/pathnotes/graph"
	"github.com/pathnotes/pathnotes/internal/memlimit"
)

// The cell API: device buffers, PTX modules and kernel launches for
// kernels that a notebook writes itself (in %%cuda and %%ptx cells, or as
// PTX text), on the real card and on the emulator alike. Every call takes
// the device's lock, so it never interleaves with a variant's run.

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
	dev   *Device
	ptr   DevicePtr
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
func (b *Buffer) Ptr() DevicePtr { return b.ptr }

// String describes the buffer, e.g. "gpu.Buffer float32[1024] on NVIDIA
// H100 80GB HBM3".
func (b *Buffer) String() string {
	if b == nil {
		return "gpu.Buffer <nil>"
	}
	s := fmt.Sprintf("gpu.Buffer %s[%d] on %s", b.typ, b.n, b.dev.info.Name)
	if b.variable != "" {
		s += " (variable " + b.variable + ")"
	}
	switch {
	case b.freed:
		s += " (freed)"
	case b.epoch != b.dev.epoch:
		s += " (lost in a context reset)"
	}
	return s
}

// cellContext returns d's context as the cell API needs it. d.mu is held.
func (d *Device) cellContext() (cellContext, error) {
	if d.lost != nil {
		return nil, d.lost
	}
	c, ok := d.ctx.(cellContext)
	if !ok {
		return nil, fmt.Errorf("gpu: device %s: its driver does not support the cell API (buffers, modules, launches)", d.info.Name)
	}
	return c, nil
}

// use checks that b can be used now: not freed, not lost, on d. d.mu is held.
func (b *Buffer) use() error {
	switch {
	case b == nil:
		return fmt.Errorf("gpu: nil *Buffer")
	case b.freed:
		return fmt.Errorf("gpu: %s: used after Free", b)
	case b.epoch != b.dev.epoch:
		return fmt.Errorf("gpu: %s: the buffer was lost when the device's context was reset after a kernel fault; allocate it again", b)
	}
	return nil
}

// ready returns the context through which b's memory is reached, when the
// device has one for the cell API and b can be used now (use). d.mu is
// held.
func (b *Buffer) ready() (cellContext, error) {
	c, err := b.dev.cellContext()
	if err != nil {
		return nil, err
	}
	if err := b.use(); err != nil {
		return nil, err
	}
	return c, nil
}

// NewBuffer allocates n zero-filled values of type t on the device.
func (d *Device) NewBuffer(t ElemType, n int) (*Buffer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.newBuffer(t, n)
}

// newBuffer is NewBuffer with d.mu held.
func (d *Device) newBuffer(t ElemType, n int) (*Buffer, error) {
	if !t.valid() {
		return nil, fmt.Errorf("gpu: NewBuffer: unknown element type %v (want gpu.Int32, gpu.Uint32, gpu.Float32 or gpu.Float64)", t)
	}
	if n < 0 || uint64(n) > math.MaxInt64/8 {
		return nil, fmt.Errorf("gpu: NewBuffer: %d elements of %s", n, t)
	}
	if _, err := d.cellContext(); err != nil {
		return nil, err
	}
	bytes := uint64(max(n, 1)) * uint64(t.Size())
	d.releaseSpare()
	if free, total, err := d.ctx.MemInfo(); err == nil && bytes > free {
		return nil, fmt.Errorf("gpu: NewBuffer: %s[%d] needs %s, but %s has %s free of %s",
			t, n, graph.FormatBytes(bytes), d.info.Name, graph.FormatBytes(free), graph.FormatBytes(total))
	}
	p, err := d.ctx.Alloc(bytes)
	if err != nil {
		return nil, d.cellErr(err, "allocating %s[%d] (%s)", t, n, graph.FormatBytes(bytes))
	}
	if err := d.ctx.Memset32(p, 0, bytes/4); err != nil {
		_ = d.ctx.Free(p)
		return nil, d.cellErr(err, "zeroing a new buffer")
	}
	return &Buffer{dev: d, ptr: p, n: n, typ: t, epoch: d.epoch}, nil
}

// upload allocates a buffer of type t holding the bytes of a host slice.
func (d *Device) upload(t ElemType, n int, data []byte) (*Buffer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	b, err := d.newBuffer(t, n)
	if err != nil {
		return nil, err
	}
	if err := b.copyIn(data); err != nil {
		_ = d.ctx.Free(b.ptr)
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

// Int32s allocates a buffer holding a copy of src.
func (d *Device) Int32s(src []int32) (*Buffer, error) { return d.upload(Int32, len(src), bytesOf(src)) }

// Uint32s allocates a buffer holding a copy of src.
func (d *Device) Uint32s(src []uint32) (*Buffer, error) {
	return d.upload(Uint32, len(src), bytesOf(src))
}

// Float32s allocates a buffer holding a copy of src.
func (d *Device) Float32s(src []float32) (*Buffer, error) {
	return d.upload(Float32, len(src), bytesOf(src))
}

// Float64s allocates a buffer holding a copy of src.
func (d *Device) Float64s(src []float64) (*Buffer, error) {
	return d.upload(Float64, len(src), bytesOf(src))
}

// GraphCSR copies g's CSR arrays to the device as int32 buffers: offsets
// (n+1 values: vertex u's arcs are offsets[u] to offsets[u+1]-1), targets
// and weights (m values each).
func (d *Device) GraphCSR(g *graph.Graph) (offsets, targets, weights *Buffer, err error) {
	if g == nil {
		return nil, nil, nil, fmt.Errorf("gpu: GraphCSR: nil graph")
	}
	if offsets, err = d.Int32s(g.Offsets()); err != nil {
		return nil, nil, nil, err
	}
	if targets, err = d.Int32s(g.Targets()); err != nil {
		_ = offsets.Free()
		return nil, nil, nil, err
	}
	if weights, err = d.Int32s(g.Weights()); err != nil {
		_ = offsets.Free()
		_ = targets.Free()
		return nil, nil, nil, err
	}
	return offsets, targets, weights, nil
}

// GraphMatrix copies g's n×n weight matrix to the device, row-major int32:
// the lightest arc's weight where there is an arc, graph.Inf where there is
// none, 0 on the diagonal (a negative self-loop's weight if it has one) —
// the matrix the Floyd-Warshall variants start from.
func (d *Device) GraphMatrix(g *graph.Graph) (*Buffer, error) {
	if g == nil {
		return nil, fmt.Errorf("gpu: GraphMatrix: nil graph")
	}
	if err := graph.CheckMatrixSize(g.N(), 1); err != nil {
		return nil, fmt.Errorf("gpu: GraphMatrix: %w", err)
	}
	return d.Int32s(g.Dense())
}

// copyIn writes data (the buffer's size) to the device. d.mu is held.
func (b *Buffer) copyIn(data []byte) error {
	c, err := b.ready()
	if err != nil {
		return err
	}
	return b.dev.cellErr(c.CopyInBytes(b.ptr, data), "copying %d bytes to %s", len(data), b)
}

// copyOut reads the buffer into data (its size). d.mu is held.
func (b *Buffer) copyOut(data []byte) error {
	c, err := b.ready()
	if err != nil {
		return err
	}
	return b.dev.cellErr(c.CopyOutBytes(data, b.ptr), "copying %s back", b)
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
	b.dev.mu.Lock()
	defer b.dev.mu.Unlock()
	out := make([]T, b.n)
	if err := b.copyOut(bytesOf(out)); err != nil {
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
	b.dev.mu.Lock()
	defer b.dev.mu.Unlock()
	return b.copyIn(bytesOf(src))
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
	b.dev.mu.Lock()
	defer b.dev.mu.Unlock()
	if _, err := b.ready(); err != nil {
		return err
	}
	if b.typ != Float64 {
		return b.dev.cellErr(b.dev.ctx.Memset32(b.ptr, uint32(word), uint64(b.n)), "filling %s", b)
	}
	if err := memlimit.Check(uint64(b.n) * 8); err != nil {
		return fmt.Errorf("gpu: filling %s: the host copy would %w", b, err)
	}
	data := make([]float64, b.n)
	for i := range data {
		data[i] = v
	}
	return b.copyIn(bytesOf(data))
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
	b.dev.mu.Lock()
	defer b.dev.mu.Unlock()
	if b.freed {
		return nil
	}
	b.freed = true
	if b.epoch != b.dev.epoch || b.dev.lost != nil {
		return nil // its context, and the memory with it, is gone already
	}
	return b.dev.cellErr(b.dev.ctx.Free(b.ptr), "freeing %s", b)
}
