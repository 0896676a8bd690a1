package display

import (
	"errors"
	"strings"
	"testing"
)

func TestShowWithoutPublisherPrintsText(t *testing.T) {
	out := captureStdout(t)
	if err := Show(HTML("<b>D</b> ready")); err != nil {
		t.Fatal(err)
	}
	if err := Show(7); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "D ready\n7\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
}

func TestShowPublishes(t *testing.T) {
	rec := withPublisher(t)
	out := captureStdout(t)
	if err := Show(Markdown("*x*")); err != nil {
		t.Fatal(err)
	}
	msgs := rec.all()
	if len(msgs) != 1 {
		t.Fatalf("%d messages, want 1", len(msgs))
	}
	m := msgs[0]
	if m.id != "" || m.update || m.data[MIMEMarkdown] != "*x*" {
		t.Errorf("message = %+v, want display_data of the markdown without id", m)
	}
	if out.Len() != 0 {
		t.Errorf("stdout got %q although a publisher is set", out.String())
	}
}

func TestHandleUpdatesItsOutput(t *testing.T) {
	rec := withPublisher(t)
	h := New(Text("first"))
	if h.Err() != nil {
		t.Fatal(h.Err())
	}
	if err := h.Update(Text("second")); err != nil {
		t.Fatal(err)
	}
	if err := Update(h.ID(), Text("third")); err != nil {
		t.Fatal(err)
	}
	other := New(Text("other"))
	msgs := rec.all()
	if len(msgs) != 4 {
		t.Fatalf("%d messages, want 4", len(msgs))
	}
	wantUpdate := []bool{false, true, true, false}
	wantText := []string{"first", "second", "third", "other"}
	for i, m := range msgs[:3] {
		if m.id != h.ID() {
			t.Errorf("message %d has id %q, want %q", i, m.id, h.ID())
		}
	}
	for i, m := range msgs {
		if m.update != wantUpdate[i] || m.data[MIMEText] != wantText[i] {
			t.Errorf("message %d = update %v text %v, want %v %q", i, m.update, m.data[MIMEText], wantUpdate[i], wantText[i])
		}
	}
	if other.ID() == h.ID() || !strings.HasPrefix(h.ID(), "pathnotes-") {
		t.Errorf("ids %q and %q: want distinct ids with the pathnotes- prefix", h.ID(), other.ID())
	}
}

func TestUpdateNeedsAnID(t *testing.T) {
	if err := Update("", Text("x")); err == nil || !strings.Contains(err.Error(), "empty display id") {
		t.Errorf("Update with empty id: err = %v", err)
	}
}

// noText is a Renderer that breaks the contract.
type noText struct{}

func (noText) MIMEBundle() (map[string]any, map[string]any) {
	return map[string]any{MIMEHTML: "<b>x</b>"}, nil
}

func TestShowRejectsBundleWithoutText(t *testing.T) {
	rec := withPublisher(t)
	err := Show(noText{})
	if err == nil || !strings.Contains(err.Error(), "display.noText") || !strings.Contains(err.Error(), "text/plain") {
		t.Errorf("err = %v, want one naming the type and text/plain", err)
	}
	if len(rec.all()) != 0 {
		t.Error("a bundle without text/plain was published")
	}
}

func TestShowReturnsViewErrorAndShowsIt(t *testing.T) {
	rec := withPublisher(t)
	err := Show(NewMatrix("D", 3, []int32{1, 2}, DistanceCells))
	if err == nil || !strings.Contains(err.Error(), "2 cells for n=3") {
		t.Fatalf("err = %v, want the matrix size error", err)
	}
	msgs := rec.all()
	if len(msgs) != 1 || !strings.Contains(msgs[0].data[MIMEText].(string), "2 cells for n=3") {
		t.Errorf("the error was not shown: %+v", msgs)
	}
}

func TestNilViewsDoNotPanic(t *testing.T) {
	captureStdout(t)
	views := []Renderer{(*Matrix)(nil), (*Table)(nil), (*GraphView)(nil), (*Plot)(nil),
		(*GraphSummary)(nil), (*FWTraceView)(nil), (*DijkstraTraceView)(nil)}
	for _, v := range views {
		if err := Show(v); err == nil || !strings.Contains(err.Error(), "nil") {
			t.Errorf("Show(%T nil) = %v, want an error about nil", v, err)
		}
	}
	var errs []error
	for _, v := range views {
		errs = append(errs, v.(errer).Err())
	}
	if errors.Join(errs...) == nil {
		t.Error("nil views report no error")
	}
}
