//go:build !cuda

package gpu

// cudaDriver reports that the binary was built without the cuda tag: the
// package then needs neither cgo nor the CUDA headers, PATHNOTES_GPU=cuda
// fails with ErrNoCUDA, and the default driver is the emulator.
func cudaDriver() (gpuDriver, error) { return nil, ErrNoCUDA }
