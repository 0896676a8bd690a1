//go:build cuda

package gpu

import "testing"

// TestCardClangMatchesNVCC loads clang's PTX of the notebooks' %%cuda
// cells (the lab's solutions among them) on the card and compares every
// kernel's results with those of NVIDIA's PTX (NVRTC's, else nvcc's).
func TestCardClangMatchesNVCC(t *testing.T) { compareClangNVCC(t, testDevice(t), true) }
