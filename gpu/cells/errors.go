package cells

import (
	"errors"
	"fmt"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/driver"
)

// LaunchError is a kernel launch of the cell API that failed, with the
// CUDA runtime API's error number, name and message, so that a notebook
// checks it as a CUDA C program checks cudaGetLastError (the course's
// "Error 9 : invalid configuration argument") on both drivers.
//
// A configuration the device cannot run (too many threads per block, a
// zero or too large dimension, too much shared memory) is refused before
// the driver is called, with Code 9. A kernel that faults (an illegal
// address, 700; a trap, 719) is the error of its Launch, or, launched
// with LaunchAsync, of the next call that waits for it (Synchronize, a
// copy back); Kernel names it either way, and on the emulator Detail says
// where (block, thread, PTX line, address). The fault leaves the context
// unusable, as on a card: the device then resets it, and the buffers and
// modules of the cell API are gone (Detail says so).
type LaunchError struct {
	Code    int    // CUDA runtime error number, e.g. 9
	Name    string // e.g. "cudaErrorInvalidConfiguration"
	Message string // cudaGetErrorString's text, e.g. "invalid configuration argument"
	Kernel  string
	Grid    gpu.Dim3
	Block   gpu.Dim3
	Shared  int
	// Detail says why, beyond CUDA's message: the limit exceeded, the
	// emulator's description of a fault, what a context reset discarded.
	Detail string
	// Err is the driver's error, if the driver reported it.
	Err error
}

// Error formats the launch and the runtime error, e.g. "kernel vecAdd
// <<<(1,1,1),(2048,1,1)>>>: cudaErrorInvalidConfiguration (9): invalid
// configuration argument", followed by the detail.
func (e *LaunchError) Error() string {
	msg := "kernel " + e.Kernel
	if e.Grid != (gpu.Dim3{}) { // the shape is unknown when only the driver named the kernel
		msg += fmt.Sprintf(" <<<%v,%v", e.Grid, e.Block)
		if e.Shared != 0 {
			msg += fmt.Sprintf(",%d", e.Shared)
		}
		msg += ">>>"
	}
	msg += fmt.Sprintf(": %s (%d): %s", e.Name, e.Code, e.Message)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap returns the driver's error.
func (e *LaunchError) Unwrap() error { return e.Err }

// runtimeErrors are the CUDA runtime API's names and messages of the error
// numbers a launch or copy can give. Since CUDA 10.1 the driver API's
// CUresult numbers equal the runtime's cudaError_t numbers for all of these.
var runtimeErrors = map[int][2]string{
	1:   {"cudaErrorInvalidValue", "invalid argument"},
	2:   {"cudaErrorMemoryAllocation", "out of memory"},
	3:   {"cudaErrorInitializationError", "initialization error"},
	4:   {"cudaErrorCudartUnloading", "driver shutting down"},
	9:   {"cudaErrorInvalidConfiguration", "invalid configuration argument"},
	98:  {"cudaErrorInvalidDeviceFunction", "invalid device function"},
	100: {"cudaErrorNoDevice", "no CUDA-capable device is detected"},
	101: {"cudaErrorInvalidDevice", "invalid device ordinal"},
	200: {"cudaErrorInvalidKernelImage", "device kernel image is invalid"},
	201: {"cudaErrorDeviceUninitialized", "invalid device context"},
	209: {"cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"},
	214: {"cudaErrorECCUncorrectable", "uncorrectable ECC error encountered"},
	218: {"cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
	400: {"cudaErrorInvalidResourceHandle", "invalid resource handle"},
	500: {"cudaErrorSymbolNotFound", "named symbol not found"},
	700: {"cudaErrorIllegalAddress", "an illegal memory access was encountered"},
	701: {"cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
	702: {"cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
	710: {"cudaErrorAssert", "device-side assert triggered"},
	714: {"cudaErrorHardwareStackError", "hardware stack error"},
	715: {"cudaErrorIllegalInstruction", "an illegal instruction was encountered"},
	716: {"cudaErrorMisalignedAddress", "misaligned address"},
	717: {"cudaErrorInvalidAddressSpace", "operation not supported on global/shared address space"},
	718: {"cudaErrorInvalidPc", "invalid program counter"},
	719: {"cudaErrorLaunchFailure", "unspecified launch failure"},
	801: {"cudaErrorNotSupported", "operation not supported"},
	999: {"cudaErrorUnknown", "unknown error"},
}

// errInvalidConfiguration is cudaErrorInvalidConfiguration.
const errInvalidConfiguration = 9

// runtimeError returns the runtime name and message of code.
func runtimeError(code int) (name, message string) {
	if e, ok := runtimeErrors[code]; ok {
		return e[0], e[1]
	}
	return fmt.Sprintf("cudaError(%d)", code), "unrecognized error code"
}

// runtimeCode maps a driver result to the runtime's number. The numbers
// have been the same for every code above since CUDA 10.1 (the runtime
// reports CUDA_ERROR_NOT_FOUND as cudaErrorSymbolNotFound, 500, and
// CUDA_ERROR_INVALID_CONTEXT as cudaErrorDeviceUninitialized, 201), so
// this is the identity; it is the one place to change should that end.
func runtimeCode(driverCode int) int { return driverCode }

// ErrorCode returns the CUDA runtime error number of err, as
// cudaGetLastError would give it: 0 for nil, the code of a *LaunchError or
// driver error found in err's chain, and -1 for any other error.
func ErrorCode(err error) int {
	if err == nil {
		return 0
	}
	var le *LaunchError
	if errors.As(err, &le) {
		return le.Code
	}
	var de *driver.Error
	if errors.As(err, &de) {
		return runtimeCode(de.Code)
	}
	return -1
}

// ErrorString returns CUDA's message for err, as cudaGetErrorString does:
// "no error" for nil, "invalid configuration argument" for a launch
// refused with code 9; an error that is not CUDA's gives its own text.
func ErrorString(err error) string {
	if err == nil {
		return "no error"
	}
	var le *LaunchError
	if errors.As(err, &le) {
		return le.Message
	}
	var de *driver.Error
	if errors.As(err, &de) {
		_, msg := runtimeError(runtimeCode(de.Code))
		return msg
	}
	return err.Error()
}

// checkConfig validates a launch configuration against the device's
// limits, before any driver call and identically for both drivers, as
// cudaLaunchKernel does; the error is a *LaunchError with code 9.
func checkConfig(info gpu.DeviceInfo, kernel string, grid, block gpu.Dim3, shared int) error {
	var why string
	switch {
	case grid.X < 1 || grid.Y < 1 || grid.Z < 1:
		why = fmt.Sprintf("grid %v has a dimension below 1", grid)
	case block.X < 1 || block.Y < 1 || block.Z < 1:
		why = fmt.Sprintf("block %v has a dimension below 1", block)
	case info.MaxThreadsPerBlock > 0 && block.Threads() > info.MaxThreadsPerBlock:
		why = fmt.Sprintf("block %v has %d threads, the device allows at most %d", block, block.Threads(), info.MaxThreadsPerBlock)
	case shared < 0:
		why = fmt.Sprintf("%d bytes of dynamic shared memory", shared)
	case info.SharedPerBlockOptin > 0 && shared > info.SharedPerBlockOptin:
		why = fmt.Sprintf("%d bytes of dynamic shared memory, the device allows at most %d per block", shared, info.SharedPerBlockOptin)
	}
	for i, v := range [3]int{block.X, block.Y, block.Z} {
		if why == "" && info.MaxBlock[i] > 0 && v > info.MaxBlock[i] {
			why = fmt.Sprintf("block %v exceeds the device's block dimensions %v", block, info.MaxBlock)
		}
	}
	for i, v := range [3]int{grid.X, grid.Y, grid.Z} {
		if why == "" && info.MaxGrid[i] > 0 && v > info.MaxGrid[i] {
			why = fmt.Sprintf("grid %v exceeds the device's grid dimensions %v", grid, info.MaxGrid)
		}
	}
	if why == "" {
		return nil
	}
	name, msg := runtimeError(errInvalidConfiguration)
	return &LaunchError{Code: errInvalidConfiguration, Name: name, Message: msg,
		Kernel: kernel, Grid: grid, Block: block, Shared: shared, Detail: why}
}
