package gpu

import (
	"testing"

	"github.com/pathnotes/pathnotes/gpu/ptxemu"
)

// TestClangCellsMatchNVCC runs every kernel of the notebooks' %%cuda
// cells (the lab's solutions among them) on the emulator from clang's PTX
// and from nvcc's, with the same arguments, and compares what they wrote.
// One worker runs the blocks in order, so that the racy kernels the
// notebooks show give the same result from both.
func TestClangCellsMatchNVCC(t *testing.T) {
	d, err := openEmulator(ptxemu.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	compareClangNVCC(t, d, false)
}
