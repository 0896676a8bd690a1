package gpu

import (
	"io"
	"os"
	"sync"
)

// printfOut is where the emulator writes device-side printf output.
var printfOut struct {
	sync.Mutex
	w io.Writer
}

// SetPrintfOutput sets where the output of device-side printf goes for
// kernels run on the emulator: nil means os.Stdout. The emulator writes a
// launch's output when the launch ends, in the order the threads printed.
// On a GPU the CUDA driver prints to the process's standard output when
// the host synchronises, as in a CUDA C program. The %%cuda and %%ptx
// magics point it at the notebook cell's output.
func SetPrintfOutput(w io.Writer) {
	printfOut.Lock()
	defer printfOut.Unlock()
	printfOut.w = w
}

// printfWriter returns the printf output of the emulator.
func printfWriter() io.Writer {
	printfOut.Lock()
	defer printfOut.Unlock()
	if printfOut.w == nil {
		return os.Stdout
	}
	return printfOut.w
}
