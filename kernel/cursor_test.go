package kernel

import (
	"fmt"
	"strings"
	"testing"
)

// TestCursorOutOfRange sends complete and inspect requests whose cursor_pos
// is before the code or past its end: the kernel takes the nearest end of
// the code (in code points, as the protocol counts) and answers as for it.
func TestCursorOutOfRange(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	complete := func(code string, pos any) map[string]any {
		req := map[string]any{"code": code}
		if pos != nil {
			req["cursor_pos"] = pos
		}
		return content(t, c.reply(c.shellMsgs, c.send(c.shell, "complete_request", req)))
	}
	for _, code := range []string{"fmt.Sprin", "s := \"héllo wörld\"; fmt.Sprin"} {
		n := float64(len([]rune(code)))
		atEnd := complete(code, nil)
		if atEnd["status"] != "ok" || atEnd["cursor_end"] != n || !strings.Contains(fmt.Sprint(atEnd["matches"]), "Sprintf") {
			t.Fatalf("%q: complete at the end: %v", code, atEnd)
		}
		for _, pos := range []int{int(n) + 1, 1000, 1 << 40} {
			r := complete(code, pos)
			if fmt.Sprint(r) != fmt.Sprint(atEnd) {
				t.Errorf("%q: complete at %d: %v, want as at the end %v", code, pos, r, atEnd)
			}
		}
		for _, pos := range []int{-1, -1000, -1 << 40} {
			r := complete(code, pos)
			if r["status"] != "ok" || r["cursor_start"] != 0.0 || r["cursor_end"] != 0.0 {
				t.Errorf("%q: complete at %d: %v, want the cursor at 0", code, pos, r)
			}
		}
	}
	inspect := func(code string, pos int) map[string]any {
		req := map[string]any{"code": code, "cursor_pos": pos, "detail_level": 0}
		return content(t, c.reply(c.shellMsgs, c.send(c.shell, "inspect_request", req)))
	}
	code := "x := 1; fmt.Println"
	atEnd := inspect(code, len(code))
	if atEnd["status"] != "ok" || atEnd["found"] != true {
		t.Fatalf("inspect at the end: %v", atEnd)
	}
	for _, pos := range []int{len(code) + 1, 1 << 40} {
		if r := inspect(code, pos); fmt.Sprint(r) != fmt.Sprint(atEnd) {
			t.Errorf("inspect at %d: %v, want as at the end %v", pos, r, atEnd)
		}
	}
	atStart := inspect(code, 0)
	for _, pos := range []int{-1, -1 << 40} {
		if r := inspect(code, pos); fmt.Sprint(r) != fmt.Sprint(atStart) {
			t.Errorf("inspect at %d: %v, want as at 0 %v", pos, r, atStart)
		}
	}
	if logs := tk.logs.String(); strings.Contains(logs, "panic") {
		t.Errorf("the kernel panicked: %s", tail(logs, 2000))
	}
}
