//go:build !cuda

package gpu

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestNoCUDA checks the build without the cuda tag: with PATHNOTES_GPU=cuda
// every entry point returns ErrNoCUDA and Describe says why there is no
// driver; unset, the emulator stands in and Describe says why.
func TestNoCUDA(t *testing.T) {
	t.Setenv(EnvDriver, "")
	if d := Describe(); !strings.HasPrefix(d, "gpu driver: emu (") || !strings.Contains(d, "built without CUDA") {
		t.Errorf("unset %s: Describe() = %q, want the emulator and the reason", EnvDriver, d)
	}
	t.Setenv(EnvDriver, "cuda")
	if _, err := listDevices(); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("listDevices() = %v, want ErrNoCUDA", err)
	}
	if _, err := Open(0); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Open(0) = %v, want ErrNoCUDA", err)
	}
	if d := Describe(); !strings.Contains(d, "built without CUDA") || !strings.Contains(d, "-tags cuda") {
		t.Errorf("Describe() = %q", d)
	}
	g := mustGraph(t, 3, "0->1 1, 1->2 2")
	for _, v := range Variants() {
		var err error
		if v.AllPairs {
			_, err = v.SolveAll(context.Background(), g, Options{Pred: true})
		} else {
			_, err = v.SolveFrom(context.Background(), g, 0, Options{Pred: true})
		}
		if !errors.Is(err, ErrNoCUDA) || !strings.HasPrefix(err.Error(), v.Name+": ") {
			t.Errorf("%s: %v, want ErrNoCUDA prefixed with the variant's name", v.Name, err)
		}
	}
}
