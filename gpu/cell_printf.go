package gpu

import (
	"io"
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
// magics point it at the notebook cell's output. The cell API's launches
// hand it to the driver in their context (WithPrintf).
func SetPrintfOutput(w io.Writer) {
	printfOut.Lock()
	defer printfOut.Unlock()
	printfOut.w = w
}

// printfWriter returns the printf output of the cell API's launches, nil
// for os.Stdout.
func printfWriter() io.Writer {
	printfOut.Lock()
	defer printfOut.Unlock()
	return printfOut.w
}
