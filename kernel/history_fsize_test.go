//go:build linux || darwin

package kernel

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// historyChildEnv holds, in the child process of
// TestHistoryWriteCutShort, the history file the child writes to.
const historyChildEnv = "PATHNOTES_TEST_HISTORY_CUT"

// TestHistoryWriteCutShort makes a record's write fail half way, for real
// (RLIMIT_FSIZE in a child process), then lifts the limit and writes the
// next record: the records before and after the failed one must read back.
func TestHistoryWriteCutShort(t *testing.T) {
	if path := os.Getenv(historyChildEnv); path != "" {
		historyCutChild(t, path)
		return
	}
	path := filepath.Join(t.TempDir(), "h.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHistoryWriteCutShort$", "-test.v")
	cmd.Env = append(os.Environ(), historyChildEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "file too large") {
		t.Fatalf("the child's write did not fail with EFBIG:\n%s", out)
	}
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
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	signal.Ignore(syscall.SIGXFSZ)
	low := lim
	low.Cur = uint64(st.Size()) + 10
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &low); err != nil {
		t.Fatal(err)
	}
	err = h.AddInput(2, strings.Repeat("lost ", 20))
	if err == nil {
		t.Fatal("a write past the file size limit succeeded")
	}
	t.Logf("AddInput: %v", err)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	if err := h.AddInput(3, "after"); err != nil {
		t.Fatal(err)
	}
}
