//go:build !cuda

package gpu

import "context"

// nvrtc reports that NVRTC needs the cuda build: this binary uses no cgo,
// so it cannot load libnvrtc; nvcc from PATH compiles instead.
func nvrtc() compiler { return noNVRTC{} }

type noNVRTC struct{}

func (noNVRTC) available() string {
	return "NVRTC: not in this build (built without -tags cuda)"
}

func (noNVRTC) describe() string { return "NVRTC" }

func (noNVRTC) compile(context.Context, string, string, CompileOptions) (string, string, error) {
	return "", "", ErrNoCUDA
}
