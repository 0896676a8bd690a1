package kernel

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// writeBigHistory writes a history file of more than historyWindow bytes:
// session 1 fills the start, sessions 2 and 3 (one cell each) are at the
// end. It returns the path.
func writeBigHistory(t testing.TB) string {
	t.Helper()
	var b bytes.Buffer
	pad := strings.Repeat("y", 1000)
	for i := 1; b.Len() < historyWindow+historyWindow/2; i++ {
		fmt.Fprintf(&b, `{"session":1,"line":%d,"source":"x := %d // %s"}`+"\n", i, i, pad)
	}
	b.WriteString(`{"session":2,"line":1,"source":"two"}` + "\n")
	b.WriteString(`{"line":1,"session":3,"source":"three"}` + "\n") // another key order
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHistoryReadsOnlyTheFileWindow(t *testing.T) {
	path := writeBigHistory(t)
	h, warns, err := OpenHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if len(warns) != 0 {
		t.Errorf("warnings %v; the record cut by the window's start is not one", warns)
	}
	if h.Session() != 4 {
		t.Errorf("session %d, want 4", h.Session())
	}
	if len(h.entries) != 0 || h.pastLoaded {
		t.Fatalf("%d entries loaded at open, want none before the history is asked for", len(h.entries))
	}
	if err := h.AddInput(1, "four"); err != nil {
		t.Fatal(err)
	}
	all := h.Tail(0)
	if len(all) < 3 {
		t.Fatalf("tail has %d entries", len(all))
	}
	if got := strings.Join(sources(all[len(all)-3:]), "|"); got != "two|three|four" {
		t.Errorf("last three entries %q, want two|three|four", got)
	}
	first := all[0]
	if first.Session != 1 || first.Line == 1 {
		t.Errorf("first entry %d/%d, want a line of session 1 inside the window, not line 1", first.Session, first.Line)
	}
	var size int
	for _, e := range all {
		size += len(e.Source)
	}
	if size > historyWindow {
		t.Errorf("%d bytes of sources loaded from a %d-byte window", size, historyWindow)
	}
	if got := sources(h.Range(-1, 1, 0)); len(got) != 1 || got[0] != "three" {
		t.Errorf("range of the previous session = %q", got)
	}
}

func TestHistoryBadLineBeyondTheWindowStartIsNamedByOffset(t *testing.T) {
	path := writeBigHistory(t)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	f.WriteString("not json\n")
	f.Close()
	h, warns, err := OpenHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	want := fmt.Sprintf("h.jsonl: byte %d:", st.Size())
	if len(warns) != 1 || !strings.Contains(warns[0].Error(), want) {
		t.Errorf("warnings %v, want one naming %q", warns, want)
	}
}

func TestHistoryLoadsAfterClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	os.WriteFile(path, []byte(`{"session":1,"line":1,"source":"a"}`+"\n"), 0o600)
	h, _, err := OpenHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	h.AddInput(1, "b")
	h.Close()
	if got := strings.Join(sources(h.Tail(0)), "|"); got != "a|b" {
		t.Errorf("tail after close %q, want a|b", got)
	}
}

// TestHistoryOpenIsCheap guards the kernel's start: opening a history file
// of any size reads at most the window, and allocates little doing so.
func TestHistoryOpenIsCheap(t *testing.T) {
	path := writeBigHistory(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h, _, err := OpenHistory(path)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("opening a %d-byte history allocated %d bytes, want under 1 MiB", historyWindow*3/2, alloc)
	}
}

func BenchmarkOpenHistory(b *testing.B) {
	path := writeBigHistory(b)
	b.ReportAllocs()
	for b.Loop() {
		h, _, err := OpenHistory(path)
		if err != nil {
			b.Fatal(err)
		}
		h.Close()
	}
}
