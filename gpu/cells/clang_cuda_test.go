//go:build cuda

package cells

import "testing"

// TestCardClangMatchesNVCC loads clang's PTX of the notebooks' %%cuda
// cells (the lab's solutions among them) on the card and compares every
// kernel's results with those of NVIDIA's PTX (NVRTC's, else nvcc's).
func TestCardClangMatchesNVCC(t *testing.T) { compareClangNVCC(t, testDevice(t), true) }

// TestCardClangHeader runs the kernel that uses every function of clang's
// header on the card, from clang's PTX and from NVIDIA's, and compares
// the results (printf's output goes to the process's, unchecked).
func TestCardClangHeader(t *testing.T) { compareHeaderKernel(t, testDevice(t), false) }
