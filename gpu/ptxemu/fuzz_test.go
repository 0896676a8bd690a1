package ptxemu

import (
	"context"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/ptx"
)

// FuzzLoad feeds arbitrary text to the loader, and launches what loads on
// one small block: whatever the input, errors come back, never a panic.
func FuzzLoad(f *testing.F) {
	for _, name := range ptx.Names() {
		text, err := ptx.PTX(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(text)
	}
	f.Add(laneKernel("add.s32 %r4, %r1, %r2;"))
	f.Add(blockSum)
	f.Add(spinLock)
	f.Add(packedRelax)
	f.Add(ptxHeader + ".visible .entry k()\n{\n\t{ .reg .b64 %t; mov.u64 %t, 1; }\n}\n")
	f.Fuzz(func(t *testing.T, text string) {
		d := New(Options{Workers: 1, MemoryBytes: 1 << 20})
		m, err := d.Load("fuzz", text)
		if err != nil {
			return
		}
		buf, err := d.Alloc(4096)
		if err != nil {
			t.Fatal(err)
		}
		// A kernel that loops forever is stopped through the context.
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		for _, name := range m.Kernels() {
			k, _ := m.Kernel(name)
			args := make([]uint64, len(k.Params()))
			for i := range args {
				args[i] = buf
			}
			_, _ = d.Launch(ctx, k, Dim3{2, 1, 1}, Dim3{40, 1, 1}, 64, args)
		}
	})
}
