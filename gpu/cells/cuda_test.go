//go:build cuda

package cells

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/internal/rtc"
)

// The cell API's tests on the card (built with the cuda tag, run as
// device_test.go says). The kernel-fault tests (TestCellSticky,
// TestCellIntPointer) stay on the emulator: with driver 580 an illegal
// address leaves the whole process unable to use the GPU, which would
// fail every later test of the binary.

func TestCardCellBuffers(t *testing.T) { checkCellBuffers(t, testDevice(t)) }

func TestCardCellParams(t *testing.T) { checkCellParams(t, testDevice(t)) }

func TestCardCellConfig(t *testing.T) { checkCellConfig(t, testDevice(t)) }

func TestCardCellVars(t *testing.T) { checkCellVars(t, testDevice(t)) }

func TestCardCellKernels(t *testing.T) { checkCellKernels(t, testDevice(t)) }

// TestCardTextureLimits checks that the device query has the texture
// limits of a real card.
func TestCardTextureLimits(t *testing.T) {
	info := testDevice(t).Info()
	if info.MaxTexture1D < 1<<16 || info.MaxTexture2D[0] < 1<<16 || info.MaxTexture3D[2] < 2048 {
		t.Errorf("texture limits 1D %d, 2D %v, 3D %v", info.MaxTexture1D, info.MaxTexture2D, info.MaxTexture3D)
	}
}

// TestNVRTC compiles with NVRTC when this machine has libnvrtc, a course
// kernel with #include <stdio.h> and printf among them, and runs it (the
// compiler's own tests are package rtc's).
func TestNVRTC(t *testing.T) {
	t.Setenv(EnvPTXCache, "off")
	c, err := rtc.CompileCUDADetail(context.Background(), "twice", "#include <stdio.h>\n__global__ void twice(int *p) {\n\tp[threadIdx.x] *= 2;\n\tif (threadIdx.x == 0) printf(\"hi\\n\");\n}\n", CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Compiler, "NVRTC") {
		t.Skipf("compiled by %s: NVRTC is not available here", c.Compiler)
	}
	ptx := c.PTX
	if !strings.Contains(ptx, "_Z5twicePi") {
		t.Errorf("NVRTC PTX:\n%s", ptx)
	}
	d := testDevice(t)
	m, err := LoadPTX(d, "twice", ptx)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := m.Kernel("twice")
	b, _ := Int32s(d, []int32{1, 2, 3})
	if err := k.Launch(gpu.Dim(1), gpu.Dim(3), b); err != nil {
		t.Fatal(err)
	}
	if got, err := b.ToInt32s(); err != nil || got[2] != 6 {
		t.Errorf("NVRTC kernel: %v, %v", got, err)
	}
}

// testDevice returns the default device when it is a CUDA card; without
// one the test is skipped, or fails in CI.
func testDevice(tb testing.TB) *gpu.Device {
	tb.Helper()
	d, err := gpu.Default()
	if err == nil && d.Driver() != "cuda" {
		err = fmt.Errorf("the default device runs on the %s driver", d.Driver())
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("no CUDA device: %v", err)
		}
		tb.Skipf("no CUDA device: %v", err)
	}
	return d
}
