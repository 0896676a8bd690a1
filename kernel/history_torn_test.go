package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistoryAfterTornRecord opens a history file whose last record was cut
// short (no newline at the end): the fragment is skipped with a warning,
// and the records written after it are read back whole.
func TestHistoryAfterTornRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	data := `{"session":1,"line":1,"source":"a := 1"}` + "\n" + `{"session":1,"line":2,"sou`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	h, warns, err := OpenHistory(path)
	if err != nil || len(warns) != 1 {
		t.Fatalf("OpenHistory: %v, warnings %v; want the torn line 2 reported", err, warns)
	}
	if err := h.AddInput(1, "b := 2"); err != nil {
		t.Fatal(err)
	}
	if err := h.AddInput(2, "c := 3"); err != nil {
		t.Fatal(err)
	}
	h.Close()

	h, warns, err = OpenHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if len(warns) != 1 || !strings.Contains(warns[0].Error(), "h.jsonl:2:") {
		t.Errorf("warnings %v, want only the torn line 2", warns)
	}
	if got := strings.Join(sources(h.Tail(0)), "|"); got != "a := 1|b := 2|c := 3" {
		t.Errorf("history after the torn record: %q", got)
	}
}
