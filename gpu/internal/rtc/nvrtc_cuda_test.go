//go:build cuda

package rtc

import (
	"context"
	"strings"
	"testing"
)

// TestNVRTC compiles with NVRTC when this machine has libnvrtc, a course
// kernel with #include <stdio.h> and printf among them, and maps a compile
// error to the cell's lines.
func TestNVRTC(t *testing.T) {
	c := nvrtc()
	if why := c.available(); why != "" {
		t.Skip(why)
	}
	ptx, log, used, err := compileArch(context.Background(), c, "twice", "#include <stdio.h>\n__global__ void twice(int *p) {\n\tp[threadIdx.x] *= 2;\n\tif (threadIdx.x == 0) printf(\"hi\\n\");\n}\n", CompileOptions{Arch: defaultArch}, true)
	t.Logf("NVRTC compiled for %s", used.Arch)
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if !strings.Contains(ptx, "_Z5twicePi") {
		t.Errorf("NVRTC PTX:\n%s", ptx)
	}
	_, log, err = c.compile(context.Background(), "bad", "#line 1 \"cell\"\n__global__ void k(int *p) {\n\tp[0] = x;\n}\n", used)
	if err == nil || !strings.Contains(cellLines(log), `cell:2: error: identifier "x" is undefined`) { // #line 1 numbers the next line 1
		t.Errorf("NVRTC compile error: %v\n%s", err, log)
	}
}
