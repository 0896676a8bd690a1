package notebook

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pathnotes/pathnotes/kernel/session"
)

// RaisesException is the tag (nbclient's convention) of a cell expected to
// fail: its error is recorded and the run goes on.
const RaisesException = "raises-exception"

// RunOptions configure Run.
type RunOptions struct {
	// Timeout bounds each cell's run; 0 means no limit.
	Timeout time.Duration
	// Progress, when set, is called before each code cell runs, with the
	// cell's index in Notebook.Cells and its execution count.
	Progress func(index, count int)
}

// CellFailure is the error of Run when a cell failed: the cell's index in
// Notebook.Cells, its execution count, and the error it raised.
type CellFailure struct {
	Index int
	Count int
	Err   *session.CellError
}

func (f *CellFailure) Error() string {
	return fmt.Sprintf("cell %d (execution count %d) failed: %v", f.Index, f.Count, f.Err)
}

// Unwrap returns the cell's error.
func (f *CellFailure) Unwrap() error { return f.Err }

// Run executes the code cells of nb in order in a session from newSession,
// closed at the end, replacing their outputs and execution counts as a
// kernel would. It stops at the first cell that fails, unless the cell has
// the raises-exception tag, and returns a *CellFailure; the cells after it
// keep their old outputs. It returns ctx's error when ctx is cancelled.
// Reading standard input fails in a cell: nobody is there to type.
func Run(ctx context.Context, nb *Notebook, newSession func() (*session.Session, error), opts RunOptions) error {
	s, err := newSession()
	if err != nil {
		return fmt.Errorf("notebook: starting a session: %w", err)
	}
	defer s.Close()
	count := 0
	displays := map[string][]*Output{} // display_id → outputs showing it, in any cell
	for i, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		count++
		if opts.Progress != nil {
			opts.Progress(i, count)
		}
		n := count
		c.ExecutionCount = &n
		c.Outputs = nil
		out := &cellOutput{cell: c, displays: displays}
		err := runCell(ctx, s, c.Source, out, opts.Timeout)
		out.finish()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ce *session.CellError
		if err != nil && !errors.As(err, &ce) {
			ce = &session.CellError{Name: "Error", Value: err.Error()}
		}
		if ce != nil {
			out.add(&Output{OutputType: "error", EName: ce.Name, EValue: ce.Value, Traceback: traceback(ce)})
			if !c.HasTag(RaisesException) {
				return &CellFailure{Index: i, Count: n, Err: ce}
			}
		}
	}
	return nil
}

// runCell runs one cell within timeout, adding its result to out.
func runCell(ctx context.Context, s *session.Session, code string, out *cellOutput, timeout time.Duration) error {
	cctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	b, err := s.Execute(session.WithExecutionCount(cctx, *out.cell.ExecutionCount), code, out)
	if err != nil {
		var ce *session.CellError
		if errors.As(err, &ce) && ce.Name == "Interrupted" && ctx.Err() == nil && cctx.Err() != nil {
			return &session.CellError{Name: "TimeoutError", Value: fmt.Sprintf("the cell did not finish within %v", timeout)}
		}
		return err
	}
	if b != nil {
		n := *out.cell.ExecutionCount
		out.add(&Output{OutputType: "execute_result", Data: b.Data, Metadata: b.Metadata, ExecutionCount: &n})
	}
	return nil
}

// traceback returns the lines of an error output: the CellError's, or its
// message when it has none.
func traceback(ce *session.CellError) []string {
	if len(ce.Traceback) > 0 {
		return ce.Traceback
	}
	return []string{ce.Error()}
}

// cellOutput is the session.Output of one cell while the notebook runs: it
// appends outputs to the cell in nbformat's shapes.
type cellOutput struct {
	mu         sync.Mutex
	cell       *Cell
	displays   map[string][]*Output
	clearOnOut bool // ClearOutput(wait): clear when the next output comes
}

var _ session.Output = (*cellOutput)(nil)

// add appends o to the cell, merging consecutive text of the same stream.
func (c *cellOutput) add(o *Output) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.addLocked(o)
}

func (c *cellOutput) addLocked(o *Output) {
	if c.clearOnOut {
		c.cell.Outputs, c.clearOnOut = nil, false
	}
	outs := c.cell.Outputs
	if o.OutputType == "stream" && len(outs) > 0 {
		if last := outs[len(outs)-1]; last.OutputType == "stream" && last.Name == o.Name {
			last.Text += o.Text
			return
		}
	}
	c.cell.Outputs = append(outs, o)
}

// Stream implements session.Output.
func (c *cellOutput) Stream(name, text string) {
	c.add(&Output{OutputType: "stream", Name: name, Text: text})
}

// Display implements session.Output: a new display_data, or with update
// the replacement of every output shown under displayID, in any cell.
func (c *cellOutput) Display(b session.Bundle, displayID string, update bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if update {
		for _, o := range c.displays[displayID] {
			o.Data, o.Metadata = b.Data, b.Metadata
		}
		return
	}
	o := &Output{OutputType: "display_data", Data: b.Data, Metadata: b.Metadata, DisplayID: displayID}
	c.addLocked(o)
	if displayID != "" {
		c.displays[displayID] = append(c.displays[displayID], o)
	}
}

// ClearOutput implements session.Output.
func (c *cellOutput) ClearOutput(wait bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if wait {
		c.clearOnOut = true
		return
	}
	c.cell.Outputs = nil
}

// errNoStdin is what a cell that reads standard input gets.
var errNoStdin = errors.New("standard input is not available when a notebook runs without a front end")

// Input implements session.Output.
func (c *cellOutput) Input(string, bool) (string, error) { return "", errNoStdin }

// finish ends the cell: a pending ClearOutput(wait) with nothing after it
// leaves the outputs as they are, as in Jupyter.
func (c *cellOutput) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearOnOut = false
}

// Summary describes the outcome of a run in a line, for the command line.
func Summary(nb *Notebook) string {
	code, failed := 0, 0
	for _, c := range nb.Cells {
		if c.CellType == "code" && c.ExecutionCount != nil {
			code++
			for _, o := range c.Outputs {
				if o.OutputType == "error" {
					failed++
					break
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d code cells run", code)
	if failed > 0 {
		fmt.Fprintf(&b, ", %d with an error", failed)
	}
	return b.String()
}
