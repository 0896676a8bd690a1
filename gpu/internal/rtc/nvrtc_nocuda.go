//go:build !cuda

package rtc

import (
	"context"
	"errors"
)

// nvrtc reports that NVRTC needs the cuda build: this binary uses no cgo,
// so it cannot load libnvrtc; nvcc from PATH compiles instead.
func nvrtc() compiler { return noNVRTC{} }

// errNoNVRTC is what noNVRTC.compile returns; compilers skip it, since
// available says why first.
var errNoNVRTC = errors.New("NVRTC: not in this build (built without -tags cuda)")

type noNVRTC struct{}

func (noNVRTC) available() string { return errNoNVRTC.Error() }

func (noNVRTC) describe() string { return "NVRTC" }

func (noNVRTC) compile(context.Context, string, string, CompileOptions) (string, string, error) {
	return "", "", errNoNVRTC
}
