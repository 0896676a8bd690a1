package display

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"sync"

	"github.com/pathnotes/pathnotes/graph"
)

var (
	outMu     sync.Mutex
	publisher func(data, metadata map[string]any, displayID string, update bool)
	// stdout receives the text/plain form when no publisher is set; tests
	// replace it.
	stdout io.Writer = os.Stdout
)

// SetPublisher connects the package to a kernel: publish is called for every
// Show, New, Update and progress bar, with update false for a new output
// (display_data) and true for one that replaces the output carrying
// displayID (update_display_data). displayID is "" for outputs that can
// never be updated. Passing nil disconnects, and output goes back to
// standard output as text.
//
// The program that starts the kernel calls this once; notebook cells never
// need to.
func SetPublisher(publish func(data, metadata map[string]any, displayID string, update bool)) {
	outMu.Lock()
	defer outMu.Unlock()
	publisher = publish
}

// hasPublisher reports whether a kernel is connected, which decides how
// often a progress bar may redraw.
func hasPublisher() bool {
	outMu.Lock()
	defer outMu.Unlock()
	return publisher != nil
}

// Show displays v now, in the middle of a cell, below the output so far.
// v may be any Renderer (every view of this package is one), a graph value
// (see Of), or anything else, which shows as its fmt %v text.
//
// The error is that of a view built from bad arguments (the view still
// shows, as the error message) or of writing to standard output.
//
// A value of a type declared in a notebook cell, with its own MIMEBundle
// method, must reach Show through a variable of type Renderer:
//
//	var r display.Renderer = v
//	display.Show(r)
//
// The interpreter attaches a cell type's methods to a value only when it is
// assigned to an interface type that has them; passed as a plain any (or
// through a conversion), it shows as its fields.
func Show(v any) error { return emit(v, "", false) }

// Update replaces the output that New (or a progress bar) created under
// displayID with v, wherever it is in the notebook.
func Update(displayID string, v any) error {
	if displayID == "" {
		return fmt.Errorf("display: Update: empty display id (use the id of a Handle from New)")
	}
	return emit(v, displayID, true)
}

// Handle is an output that can be replaced after it is shown, for example a
// table that grows as benchmark results come in:
//
//	h := display.New(t)
//	t.Add("fw-hn", 1024, 0.12)
//	h.Update(t)
type Handle struct {
	id  string
	err error
}

// New shows v as Show does, under a fresh display id, and returns the handle
// that updates it. A failure to show is kept in the handle's Err.
func New(v any) *Handle {
	h := &Handle{id: "pathnotes-" + rand.Text()}
	h.err = emit(v, h.id, false)
	return h
}

// ID returns the Jupyter display id of the output. Ids are random, so an
// output of an earlier kernel session is never updated by mistake.
func (h *Handle) ID() string { return h.id }

// Update replaces the handle's output with v.
func (h *Handle) Update(v any) error {
	h.err = emit(v, h.id, true)
	return h.err
}

// Err returns the error of the last time the handle showed something.
func (h *Handle) Err() error { return h.err }

// errer is implemented by views that remember a bad argument.
type errer interface{ Err() error }

// emit renders v and hands its bundle to the publisher, or prints its text.
func emit(v any, displayID string, update bool) error {
	r := Of(v)
	data, metadata := r.MIMEBundle()
	var viewErr error
	if e, ok := r.(errer); ok {
		viewErr = e.Err()
	}
	text, ok := data[MIMEText].(string)
	if !ok {
		return fmt.Errorf("display: %T's MIMEBundle has no %q string entry (every bundle needs one)", r, MIMEText)
	}
	outMu.Lock()
	defer outMu.Unlock()
	if publisher != nil {
		publisher(data, metadata, displayID, update)
		return viewErr
	}
	if _, err := io.WriteString(stdout, text+"\n"); err != nil {
		return fmt.Errorf("display: writing text output: %w", err)
	}
	return viewErr
}

// Of returns the Renderer that displays v: Present's for the values it
// presents; a graph.Path's text; "error: " and the message for an error;
// the fmt %v text of anything else.
func Of(v any) Renderer {
	if r := Present(v); r != nil {
		return r
	}
	switch x := v.(type) {
	case graph.Path:
		return Text(x.String())
	case error:
		return Text("error: " + x.Error())
	}
	return Text(fmt.Sprintf("%v", v))
}

// Present returns the rich Renderer of the values this package draws, and
// nil for any other value (whose caller keeps its own text form):
//
//   - a Renderer is itself;
//   - a *graph.Graph is a drawing (Graph), a sampled drawing with a summary,
//     or a summary alone, by size;
//   - a *graph.AllPairs shows its distance and predecessor matrices side by
//     side, a *graph.SingleSource its distance table;
//   - a *graph.FWTrace and a *graph.DijkstraTrace are their step views
//     (FWTrace, DijkstraTrace);
//   - an image.Image is encoded as PNG.
//
// The kernel shows a cell's trailing value through Present, so that graph
// values, results and traces display richly without a MIMEBundle method.
func Present(v any) Renderer {
	switch x := v.(type) {
	case Renderer:
		return x
	case *graph.Graph:
		return Graph(x)
	case *graph.AllPairs:
		if x != nil && x.Pred != nil {
			return Row(DistMatrix(x), PredMatrix(x))
		}
		return DistMatrix(x)
	case *graph.SingleSource:
		return SingleSource(x)
	case *graph.FWTrace:
		return FWTrace(x)
	case *graph.DijkstraTrace:
		return DijkstraTrace(x)
	case image.Image:
		var buf bytes.Buffer
		if err := png.Encode(&buf, x); err != nil {
			return errorBundle(fmt.Errorf("display: encoding %T as PNG: %w", v, err))
		}
		return PNG(buf.Bytes())
	}
	return nil
}
