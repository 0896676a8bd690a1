package session

import "io"

// Stdout returns the writer behind the cells' os.Stdout: text written to
// it goes to the running cell's output, as a cell's own prints do. Code
// that prints for the cells from outside the interpreter (the GPU
// emulator's device-side printf) writes here.
func (s *Session) Stdout() io.Writer { return s.stdout.w }
