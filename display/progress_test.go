package display

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for progress tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestProgressUpdatesInPlaceAndThrottles(t *testing.T) {
	rec := withPublisher(t)
	clock := &fakeClock{t: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	pb := newProgress("FW rounds", 6, clock.now)

	// Many Adds within one throttle interval redraw nothing.
	clock.advance(10 * time.Millisecond)
	pb.Add(1)
	clock.advance(10 * time.Millisecond)
	pb.Add(1)
	if n := len(rec.all()); n != 1 {
		t.Fatalf("%d messages after two quick Adds, want only the initial one", n)
	}
	// After the interval the next Add redraws.
	clock.advance(time.Second)
	pb.Add(1) // 3/6 after 1.02 s
	msgs := rec.all()
	if len(msgs) != 2 {
		t.Fatalf("%d messages, want 2", len(msgs))
	}
	text := msgs[1].data[MIMEText].(string)
	if want := "FW rounds [##########----------] 50% 3/6 1.0s elapsed, 1.0s left"; text != want {
		t.Errorf("text = %q\nwant   %q", text, want)
	}
	if html := msgs[1].data[MIMEHTML].(string); !strings.Contains(html, "width:50.0%") {
		t.Errorf("HTML bar is not half full: %s", html)
	}
	// Reaching the total redraws at once, and Done always does.
	pb.Add(3)
	pb.Done()
	msgs = rec.all()
	if len(msgs) != 4 {
		t.Fatalf("%d messages, want 4", len(msgs))
	}
	if last := msgs[3].data[MIMEText].(string); !strings.Contains(last, "100% 6/6 done in 1.0s") {
		t.Errorf("final text = %q", last)
	}
	for i, m := range msgs {
		if m.id != pb.ID() || m.update != (i > 0) {
			t.Errorf("message %d: id %q update %v, want id %q update %v", i, m.id, m.update, pb.ID(), i > 0)
		}
	}
	if pb.Err() != nil {
		t.Error(pb.Err())
	}
}

func TestProgressWithoutTotalCounts(t *testing.T) {
	rec := withPublisher(t)
	clock := &fakeClock{t: time.Unix(0, 0)}
	pb := newProgress("", 0, clock.now)
	clock.advance(250 * time.Millisecond)
	pb.Set(42)
	msgs := rec.all()
	if got := msgs[len(msgs)-1].data[MIMEText]; got != "42 done 250ms elapsed" {
		t.Errorf("text = %q", got)
	}
}

func TestProgressWithoutPublisherPrintsLines(t *testing.T) {
	out := captureStdout(t)
	clock := &fakeClock{t: time.Unix(0, 0)}
	pb := newProgress("job", 2, clock.now)
	clock.advance(200 * time.Millisecond)
	pb.Set(1) // too soon for a terminal redraw (1 s)
	clock.advance(200 * time.Millisecond)
	pb.Done()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "job [----") || !strings.Contains(lines[1], "50% 1/2 done in 400ms") {
		t.Errorf("stdout lines = %q", lines)
	}
}

// Report sets both the count and the total, as the solvers' Progress
// options call it.
func TestProgressReport(t *testing.T) {
	rec := withPublisher(t)
	clock := &fakeClock{t: time.Unix(0, 0)}
	pb := newProgress("FW", 0, clock.now)
	clock.advance(time.Second)
	pb.Report(5, 10)
	msgs := rec.all()
	if got, _ := msgs[len(msgs)-1].data[MIMEText].(string); !strings.Contains(got, "50%") || !strings.Contains(got, "5/10") {
		t.Errorf("text = %q, want 50%% and 5/10", got)
	}
}
