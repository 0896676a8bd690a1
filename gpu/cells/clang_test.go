package cells

import (
	"os"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/ptxemu"
)

// TestClangCellsMatchNVCC runs every kernel of the notebooks' %%cuda
// cells (the lab's solutions among them) on the emulator from clang's PTX
// and from nvcc's, with the same arguments, and compares what they wrote.
// One worker runs the blocks in order, so that the racy kernels the
// notebooks show give the same result from both.
func TestClangCellsMatchNVCC(t *testing.T) {
	d, err := gpu.OpenEmulator(ptxemu.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	compareClangNVCC(t, d, false)
}

// TestLabNotebookNamesClang checks that the lab notebook tells a student
// without the CUDA toolkit to install clang, and how to ask for it.
func TestLabNotebookNamesClang(t *testing.T) {
	b, err := os.ReadFile("../../notebooks/05-apsp-lab.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"otherwise by clang", "install clang", "brew install llvm", "%%cuda --compiler=clang"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("05-apsp-lab.ipynb does not say %q", want)
		}
	}
}
