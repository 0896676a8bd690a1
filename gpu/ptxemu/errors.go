package ptxemu

import (
	"fmt"
	"strings"
)

// SyntaxError is PTX text the parser cannot read.
type SyntaxError struct {
	Module string // the module's name, as given to Load
	Line   int
	Msg    string
}

// Error formats the module, line and message.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("ptx %s: line %d: syntax error: %s", moduleName(e.Module), e.Line, e.Msg)
}

// UnsupportedError is valid PTX that the interpreter does not run: an
// instruction outside its subset, or a modifier that would change the
// result in a way it does not model (a rounding mode, a thread count on a
// barrier). Loading fails with it, as a JIT compiler would fail, rather
// than run the kernel with different semantics.
type UnsupportedError struct {
	Module      string
	Line        int
	Instruction string // the instruction as written, e.g. "call.uni vprintf"
	Why         string // what exactly is not supported, when not the whole opcode
}

// Error formats "unsupported PTX instruction X at line N".
func (e *UnsupportedError) Error() string {
	msg := fmt.Sprintf("ptx %s: unsupported PTX instruction %s at line %d", moduleName(e.Module), e.Instruction, e.Line)
	if e.Why != "" {
		msg += " (" + e.Why + ")"
	}
	return msg
}

// LoadError collects the problems of one module: every unsupported
// instruction (up to maxLoadErrors) or the first syntax error.
type LoadError struct {
	Module string
	Errs   []error
	More   int // problems not listed
}

// maxLoadErrors bounds the problems a LoadError lists.
const maxLoadErrors = 8

// Error lists the problems one per line.
func (e *LoadError) Error() string {
	var sb strings.Builder
	for i, err := range e.Errs {
		if i > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString(err.Error())
	}
	if e.More > 0 {
		fmt.Fprintf(&sb, "\n... and %d more", e.More)
	}
	return sb.String()
}

// Unwrap returns the problems, for errors.As.
func (e *LoadError) Unwrap() []error { return e.Errs }

func moduleName(m string) string {
	if m == "" {
		return "module"
	}
	return "module " + m
}

// FaultKind classifies what stopped a launch.
type FaultKind uint8

// The faults a launch can stop with. A GPU reports only the first two
// (as CUDA_ERROR_ILLEGAL_ADDRESS and CUDA_ERROR_MISALIGNED_ADDRESS,
// without saying where); the others are undefined behaviour on a GPU (a
// hang, garbage) that the interpreter detects.
const (
	IllegalAddress    FaultKind = iota // an access outside every allocation or window
	MisalignedAddress                  // an access not aligned to its size
	DivergentBarrier                   // bar.sync not reached by every thread, or at different barriers
	WarpSyncMisuse                     // a .sync warp instruction whose member lanes do not all take part
	DivideByZero                       // integer div or rem by zero (undefined in PTX)
	Uninitialized                      // a read of global memory nothing wrote (Options.CheckUninitialized)
	Trap                               // the trap instruction
	Cancelled                          // the launch's context was cancelled
)

var faultNames = [...]string{"illegal address", "misaligned address", "divergent barrier",
	"warp-synchronous instruction misused", "integer division by zero", "read of uninitialized memory",
	"trap", "cancelled"}

// String names the kind.
func (k FaultKind) String() string {
	if int(k) < len(faultNames) {
		return faultNames[k]
	}
	return fmt.Sprintf("fault %d", k)
}

// Fault is an error that stopped a launch, with where it happened: the
// kernel, the block and thread (the first lane concerned), the PTX line and
// instruction, and for memory faults the address and state space.
type Fault struct {
	Kind   FaultKind
	Kernel string
	Block  Dim3
	Thread Dim3
	Line   int
	Inst   string // the instruction's text
	Space  string // for memory faults: "global", "shared", "local", "const", "param" or "generic"
	Addr   uint64 // for memory faults: the address in that space
	Detail string // what exactly, e.g. the address relative to the nearest allocation
	// Err is the context's error of a Cancelled launch, which Unwrap
	// returns, so that errors.Is(err, context.Canceled) holds.
	Err error
}

// Unwrap returns the context's error of a cancelled launch, else nil.
func (f *Fault) Unwrap() error { return f.Err }

// Error says what happened and where.
func (f *Fault) Error() string {
	if f.Kind == Cancelled {
		return "kernel " + f.Kernel + " cancelled: " + f.Detail
	}
	where := fmt.Sprintf("kernel %s, block %v, thread %v", f.Kernel, f.Block, f.Thread)
	if f.Line > 0 {
		where += fmt.Sprintf(", PTX line %d", f.Line)
	}
	if f.Inst != "" {
		where += " (" + f.Inst + ")"
	}
	if f.Detail == "" {
		return f.Kind.String() + " in " + where
	}
	return f.Kind.String() + " in " + where + ": " + f.Detail
}
