//go:build linux || darwin

package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/internal/fsizetest"
)

// TestHistoryWriteCutShort makes a record's write fail half way, for real
// (RLIMIT_FSIZE in a child process), then lifts the limit and writes the
// next record: the records before and after the failed one must read back.
func TestHistoryWriteCutShort(t *testing.T) {
	if path, ok := fsizetest.Child(t); ok {
		historyCutChild(t, path)
		return
	}
	path := filepath.Join(t.TempDir(), "h.jsonl")
	fsizetest.RunChild(t, path, "write")
	h, warns, err := OpenHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if len(warns) != 1 {
		t.Errorf("warnings %v, want one for the record cut short", warns)
	}
	if got := strings.Join(sources(h.Tail(0)), "|"); got != "before|after" {
		t.Errorf("history = %q, want before|after", got)
	}
}

// historyCutChild writes a record, fails the next one past a file size
// limit set just beyond the file's end, and writes a third once the limit
// is lifted.
func historyCutChild(t *testing.T, path string) {
	h, _, err := OpenHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.AddInput(1, "before"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	lift := fsizetest.Limit(t, uint64(st.Size())+10)
	fsizetest.WantFailed(t, "AddInput", h.AddInput(2, strings.Repeat("lost ", 20)))
	lift()
	if err := h.AddInput(3, "after"); err != nil {
		t.Fatal(err)
	}
}
