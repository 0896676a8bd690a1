package cells

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/pathnotes/pathnotes/gpu"
)

// printfTestPTX is nvcc's PTX (as cellTestPTX) of:
//
//	#include <stdio.h>
//	__device__ float devData;
//	extern "C" __global__ void checkGlobal() {
//		printf("Device: the value of the global variable is %f\n", devData);
//		devData += 2.0f;
//	}
//	extern "C" __global__ void formats(int i, unsigned u, long long ll, double d, float f) {
//		printf("t%d|%5d|%-4i|%u|%x|%X|%o|%lld|%llu|%c|%s|%8.3f|%e|%g|%G|%%|%05d|%+d|%.2s|%ld\n",
//		       threadIdx.x, i, i, u, u, u, u, ll, (unsigned long long)ll, 'A' + threadIdx.x, "str", d, d, f, 1e-10, 42, 7, "abcdef", (long)ll);
//	}
var printfTestPTX = mustReadFile("testdata/printf.ptx")

// TestCellPrintf runs device-side printf on the emulator: the course's
// devData example, and every conversion with flags, width and precision,
// one line per thread in thread order.
func TestCellPrintf(t *testing.T) {
	var out bytes.Buffer
	d := emuDevice(t)
	m, err := LoadPTX(d, "printf", printfTestPTX)
	if err != nil {
		t.Fatal(err)
	}
	m.sess = &Session{Printf: &out}
	v, _ := m.Var("devData")
	if err := v.CopyFloat32s([]float32{3.14}); err != nil {
		t.Fatal(err)
	}
	k, _ := m.Kernel("checkGlobal")
	if err := k.Launch(gpu.Dim(1), gpu.Dim(1)); err != nil {
		t.Fatal(err)
	}
	if got, _ := v.ToFloat32s(); out.String() != "Device: the value of the global variable is 3.140000\n" || got[0] != float32(3.14)+2 {
		t.Errorf("checkGlobal printed %q, devData %v", out.String(), got)
	}
	out.Reset()
	k, _ = m.Kernel("formats")
	if err := k.Launch(gpu.Dim(1), gpu.Dim(2), -42, uint32(3054), int64(-1234567890123), 3.14159265, float32(0.5)); err != nil {
		t.Fatal(err)
	}
	want := ""
	for tid := 0; tid < 2; tid++ {
		want += fmt.Sprintf("t%d|  -42|-42 |3054|bee|BEE|5756|-1234567890123|18446742839141661493|%c|str|   3.142|3.141593e+00|0.5|1E-10|%%|00042|+7|ab|-1234567890123\n", tid, 'A'+tid)
	}
	if out.String() != want {
		t.Errorf("printf formats:\n got %q\nwant %q", out.String(), want)
	}
}
