package session

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is an Output that keeps everything a cell produces.
type recorder struct {
	mu       sync.Mutex
	streams  map[string]*strings.Builder
	displays []Bundle
	clears   int
	inputs   []string // lines to answer Input with, in order
	prompts  int
	noInput  bool
}

func newRecorder() *recorder {
	return &recorder{streams: map[string]*strings.Builder{"stdout": {}, "stderr": {}}}
}

func (r *recorder) Stream(name, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.streams[name].WriteString(text)
}

func (r *recorder) Display(b Bundle, _ string, _ bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.displays = append(r.displays, b)
}

func (r *recorder) ClearOutput(bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clears++
}

func (r *recorder) Input(string, bool) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prompts++
	if r.noInput || len(r.inputs) == 0 {
		return "", errors.New("the front end does not allow stdin")
	}
	line := r.inputs[0]
	r.inputs = r.inputs[1:]
	return line, nil
}

func (r *recorder) stdout() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.streams["stdout"].String()
}

func (r *recorder) stderr() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.streams["stderr"].String()
}

// newSession starts a session with the options the kernel uses, closed at
// the end of the test.
func newSession(t testing.TB) *Session {
	t.Helper()
	s, err := New(Options{Prelude: []string{"fmt"}})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// run executes code, failing the test on error, and returns the result text.
func run(t testing.TB, s *Session, code string) string {
	t.Helper()
	b, err := s.Execute(context.Background(), code, newRecorder())
	if err != nil {
		t.Fatalf("Execute(%q): %v", code, err)
	}
	return text(b)
}

// text is the text/plain of a bundle, "" for nil.
func text(b *Bundle) string {
	if b == nil {
		return ""
	}
	s, _ := b.Data["text/plain"].(string)
	return s
}

// cellError runs code that must fail and returns its error.
func cellError(t testing.TB, s *Session, code string) *CellError {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := s.Execute(ctx, code, newRecorder())
	if err == nil {
		t.Fatalf("Execute(%q) succeeded, want an error", code)
	}
	var ce *CellError
	if !errors.As(err, &ce) {
		t.Fatalf("Execute(%q) error %T %v, want a *CellError", code, err, err)
	}
	return ce
}
