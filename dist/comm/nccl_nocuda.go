//go:build !cuda

package comm

import (
	"context"
	"errors"

	"github.com/pathnotes/pathnotes/gpu"
)

// errNoNCCL is why a build without CUDA has no NCCL transport.
var errNoNCCL = errors.New("comm: this binary was built without CUDA, and NCCL needs it: rebuild with `-tags cuda`, or run with --transport tcp")

// NCCLVersion reports that this build has no NCCL transport.
func NCCLVersion() (string, error) { return "", errNoNCCL }

// NewNCCL reports that this build has no NCCL transport.
func NewNCCL(context.Context, *Control, *gpu.Device, Options) (Transport, error) {
	return nil, errNoNCCL
}
