package session

import (
	"context"
	"io"
)

// Stdout returns the writer behind the cells' os.Stdout: text written to
// it goes to the running cell's output, as a cell's own prints do. Code
// that prints for the cells from outside the interpreter (the GPU
// emulator's device-side printf) writes here.
func (s *Session) Stdout() io.Writer { return s.stdout.w }

// CellContext returns the context of the cell code running now, which an
// interrupt cancels, or context.Background() between cells: what Ctx()
// returns inside a cell. Code outside the interpreter that runs for the
// cells and takes no context of theirs (cells.Launch) asks for it here.
func (s *Session) CellContext() context.Context { return s.hooks.context() }
