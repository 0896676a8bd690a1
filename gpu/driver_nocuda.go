//go:build !cuda

package gpu

// cudaDriver reports that the binary was built without the cuda tag: the
// package then needs neither cgo nor the CUDA headers, and every GPU call
// returns ErrNoCUDA.
func cudaDriver() (Driver, error) { return nil, ErrNoCUDA }
