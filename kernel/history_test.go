package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
