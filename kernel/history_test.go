package kernel

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
)

func sources(es []HistoryEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Source)
	}
	return out
}

func TestHistoryPersistsAcrossSessions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "history.jsonl")
	h, warns, err := OpenHistory(path)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	if h.Session() != 1 {
		t.Errorf("first session = %d, want 1", h.Session())
	}
	for i, src := range []string{"a := 1", "a + 1", "fmt.Println(a)"} {
		if err := h.AddInput(i+1, src); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.AddOutput(2, "2"); err != nil {
		t.Fatal(err)
	}
	h.Close()

	h2, warns, err := OpenHistory(path)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	defer h2.Close()
	if h2.Session() != 2 {
		t.Errorf("second session = %d, want 2", h2.Session())
	}
	h2.AddInput(1, "b := 2")
	tail := h2.Tail(3)
	if got := strings.Join(sources(tail), "|"); got != "a + 1|fmt.Println(a)|b := 2" {
		t.Errorf("tail 3 = %q", got)
	}
	if tail[0].Session != 1 || tail[0].Line != 2 || tail[0].Output == nil || *tail[0].Output != "2" {
		t.Errorf("tail[0] = %+v", tail[0])
	}
	if tail[1].Output != nil {
		t.Errorf("a line without result has output %q", *tail[1].Output)
	}
	if got := sources(h2.Range(-1, 2, 3)); len(got) != 1 || got[0] != "a + 1" {
		t.Errorf("range of the previous session, lines [2,3) = %q", got)
	}
	if got := sources(h2.Range(1, 1, 0)); len(got) != 3 {
		t.Errorf("range of session 1 to the end = %q", got)
	}
	if got := sources(h2.Range(0, 1, 0)); len(got) != 1 || got[0] != "b := 2" {
		t.Errorf("range of the current session = %q", got)
	}
	if got := h2.Tail(0); len(got) != 4 {
		t.Errorf("tail 0 gave %d entries, want all 4", len(got))
	}
}

func TestHistorySkipsBadLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	os.WriteFile(path, []byte(`{"session":3,"line":1,"source":"x"}`+"\nnot json\n"+`{"session":0,"line":1}`+"\n"), 0o600)
	h, warns, err := OpenHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if len(warns) != 2 || !strings.Contains(warns[0].Error(), "h.jsonl:2") || !strings.Contains(warns[1].Error(), "h.jsonl:3") {
		t.Errorf("warnings = %v, want lines 2 and 3", warns)
	}
	if h.Session() != 4 {
		t.Errorf("session = %d, want 4", h.Session())
	}
}

func TestHistorySearch(t *testing.T) {
	h, _, _ := OpenHistory("")
	for i, src := range []string{"x := 6*7", "y := 1", "6*7", "fmt.Println(\"6*7\")", "6*7", "Y := 2"} {
		h.AddInput(i+1, src)
	}
	cases := []struct {
		pattern string
		n       int
		unique  bool
		want    string
	}{
		{"6*7", 0, false, "6*7|6*7"},
		{"*6*7*", 0, false, `x := 6*7|6*7|fmt.Println("6*7")|6*7`},
		{"*6*7*", 0, true, `x := 6*7|fmt.Println("6*7")|6*7`},
		{"*6*7*", 2, false, `fmt.Println("6*7")|6*7`},
		{"6*7", 0, true, "6*7"},
		{"? := ?", 0, false, "y := 1|Y := 2"},
		{"[xy] := *", 0, false, "x := 6*7|y := 1"},
		{"[^xy] := *", 0, false, "Y := 2"},
		{"", 2, false, "6*7|Y := 2"},
		{"nothing", 0, false, ""},
		{"a.b", 0, false, ""}, // . is literal, not a wildcard
	}
	for _, c := range cases {
		got, err := h.Search(c.pattern, c.n, c.unique)
		if err != nil {
			t.Errorf("Search(%q): %v", c.pattern, err)
			continue
		}
		if s := strings.Join(sources(got), "|"); s != c.want {
			t.Errorf("Search(%q, n=%d, unique=%v) = %q, want %q", c.pattern, c.n, c.unique, s, c.want)
		}
	}
	if _, err := h.Search("[abc", 0, false); err == nil {
		t.Error("unclosed [ accepted")
	}
}

func TestHistoryOutputIsBounded(t *testing.T) {
	h, _, _ := OpenHistory(filepath.Join(t.TempDir(), "h.jsonl"))
	defer h.Close()
	h.AddInput(1, "big")
	h.AddOutput(1, strings.Repeat("é", maxHistoryOutput))
	out := *h.Tail(1)[0].Output
	if len(out) > maxHistoryOutput+len("…") || !strings.HasSuffix(out, "é…") {
		t.Errorf("output kept as %d bytes ending %q", len(out), out[len(out)-8:])
	}
}

func TestDefaultHistoryPath(t *testing.T) {
	t.Setenv(HistoryEnv, "")
	t.Setenv("XDG_DATA_HOME", "/data")
	if p, _ := DefaultHistoryPath(); p != "/data/pathnotes/history.jsonl" {
		t.Errorf("with XDG_DATA_HOME: %s", p)
	}
	t.Setenv(HistoryEnv, "/tmp/h.jsonl")
	if p, _ := DefaultHistoryPath(); p != "/tmp/h.jsonl" {
		t.Errorf("with %s: %s", HistoryEnv, p)
	}
}

func TestHistoryAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	tk := startKernel(t, path)
	c := connect(t, tk, testKey)
	c.value("a := 6\na * 7")
	c.execute("a = 1", map[string]any{"store_history": false})
	c.execute("silent := 1", map[string]any{"silent": true})
	c.value("a + 1")
	id := c.send(c.control, "shutdown_request", map[string]any{"restart": true})
	if r := content(t, c.reply(c.controlMsgs, id)); r["status"] != "ok" || r["restart"] != true {
		t.Errorf("shutdown_reply %v", r)
	}
	select {
	case <-tk.done:
		if tk.err != nil {
			t.Errorf("Run after shutdown: %v", tk.err)
		}
	case <-time.After(waitFor):
		t.Fatal("Run did not return after shutdown_request")
	}
	// The old ports are closed: a new connection gets no answer.
	if err := c.hb.Send(zmq4.NewMsg([]byte("ping"))); err == nil {
		done := make(chan struct{})
		go func() { c.hb.Recv(); close(done) }()
		select {
		case <-done:
			t.Error("heartbeat answered after shutdown")
		case <-time.After(300 * time.Millisecond):
		}
	}

	// The front end starts a new process: a new kernel on the same file.
	tk2 := startKernel(t, path)
	c2 := connect(t, tk2, testKey)
	id = c2.send(c2.shell, "history_request", map[string]any{"output": true, "raw": true, "hist_access_type": "tail", "n": 10})
	h := content(t, c2.reply(c2.shellMsgs, id))["history"].([]any)
	want := `[[1 1 [a := 6
a * 7 42]] [1 2 [a + 1 2]]]`
	if got := fmt.Sprint(h); got != want {
		t.Errorf("history after restart = %s, want %s", got, want)
	}
	if v := c2.value("7"); v != "7" {
		t.Fatal(v)
	}
	id = c2.send(c2.shell, "history_request", map[string]any{"output": false, "raw": true, "hist_access_type": "range",
		"session": 0, "start": 1, "stop": 2})
	if got := fmt.Sprint(content(t, c2.reply(c2.shellMsgs, id))["history"]); got != "[[2 1 7]]" {
		t.Errorf("range of the new session = %s", got)
	}
	id = c2.send(c2.shell, "history_request", map[string]any{"output": false, "raw": true, "hist_access_type": "search",
		"pattern": "a*", "unique": true})
	if got := fmt.Sprint(content(t, c2.reply(c2.shellMsgs, id))["history"]); got != "[[1 1 a := 6\na * 7] [1 2 a + 1]]" {
		t.Errorf("search a* = %s", got)
	}
	id = c2.send(c2.shell, "history_request", map[string]any{"output": false, "raw": true, "hist_access_type": "nonsense"})
	if r := content(t, c2.reply(c2.shellMsgs, id)); r["status"] != "error" {
		t.Errorf("bad hist_access_type: %v", r)
	}
}
