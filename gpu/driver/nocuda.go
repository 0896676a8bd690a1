//go:build !cuda

package driver

// CUDA reports that the binary was built without the cuda tag: the
// package then needs neither cgo nor the CUDA headers, PATHNOTES_GPU=cuda
// fails with ErrNoCUDA, and the default driver is the emulator.
func CUDA() (Driver, error) { return nil, ErrNoCUDA }
