// Package cells runs kernels that notebooks write themselves, in %%cuda
// and %%ptx cells or as PTX text, on a GPU and on the emulator alike:
// device buffers (Buffer: NewBuffer, Int32s, Float32s, GraphCSR, ...), PTX
// modules and their kernels and variables (Module, Kernel: LoadPTX),
// launches that check their arguments against the kernel's parameters
// and report faults by the kernel's name (LaunchError, ErrorCode,
// ErrorString), and CUDA C compiled to PTX (CompileCUDA).
//
// What belongs to a notebook session is a Session: the modules its cells
// loaded, which Go cells reach by name (Launch, GetKernel, GetVar), the
// context of its launches and where their device-side printf goes. In a
// notebook, the session's methods are this package's functions:
// cells.Launch("vecAdd", gpu.Dim(blocks), gpu.Dim(threads), a, b, c, n)
// is the session's Launch.
//
// Every call holds its device (gpu.Device.Hold), so it never interleaves
// with a solver's run. A launch made without waiting (LaunchAsync) stays
// pending on its device until something waits for it; a solver started
// meanwhile waits first, so that a fault is not taken for its own.
package cells
