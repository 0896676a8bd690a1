package magics

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/kernel/session"
)

// displayOutput records the bundles a cell displays and its stderr, besides
// its stdout.
type displayOutput struct {
	cellOutput
	displays []session.Bundle
	stderr   strings.Builder
}

func (o *displayOutput) Display(b session.Bundle, _ string, _ bool) {
	o.displays = append(o.displays, b)
}

func (o *displayOutput) Stream(name, text string) {
	if name == "stderr" {
		o.stderr.WriteString(text)
	}
	o.cellOutput.Stream(name, text)
}

// TestProfileMagic profiles a cell's launches of a strided copy on the
// emulator: the profile shows after the cell's output, the cell keeps its
// result, and a cell that launches nothing says so.
func TestProfileMagic(t *testing.T) {
	s, _ := cellSession(t)
	ptx, err := os.ReadFile("../../gpu/cells/testdata/profile/patterns.ptx")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, s, "%%ptx --name patterns\n"+string(ptx)); err != nil {
		t.Fatal(err)
	}
	out := &displayOutput{}
	b, err := s.Execute(context.Background(), `%%profile
d, _ := gpu.Default()
in, _ := cells.NewBuffer(d, cells.Float32, 32*1024)
dst, _ := cells.NewBuffer(d, cells.Float32, 1024)
for range 2 {
	if err := cells.Launch("copyStrided", gpu.Dim(4), gpu.Dim(256), dst, in, 1024, 32); err != nil {
		panic(err)
	}
}
fmt.Println("copied")
"the result"`, out)
	if err != nil {
		t.Fatal(err)
	}
	if b == nil || !strings.Contains(b.Data["text/plain"].(string), "the result") || !strings.Contains(out.text(), "copied") {
		t.Errorf("the cell's own output is lost: result %v, printed %q", b, out.text())
	}
	if len(out.displays) != 1 {
		t.Fatalf("%d displays, want the profile", len(out.displays))
	}
	text := out.displays[0].Data["text/plain"].(string)
	// Both launches in one column: each lane's load in its own sector.
	if !regexp.MustCompile(`(?m)^launches +2$`).MatchString(text) {
		t.Errorf("the two launches are not one column:\n%s", text)
	}
	for _, want := range []string{"Kernel profile", "copyStrided", "32.0 ✗",
		"touches 32.0 sectors (1024 bytes) for 128 bytes asked: not coalesced", "cell line 24 (PTX line"} {
		if !strings.Contains(text, want) {
			t.Errorf("the profile lacks %q:\n%s", want, text)
		}
	}
	if _, ok := out.displays[0].Data["text/html"]; !ok {
		t.Error("the profile has no HTML")
	}
	none := &displayOutput{}
	if _, err := s.Execute(context.Background(), "%%profile\nx := 1\n_ = x", none); err != nil || len(none.displays) != 0 ||
		!strings.Contains(none.stderr.String(), "launched no kernel") {
		t.Errorf("a cell without launches: error %v, %d displays, stderr %q", err, len(none.displays), none.stderr.String())
	}
	if _, _, err := run(t, s, "%%profile --what\nx := 2"); err == nil || !strings.Contains(err.Error(), "no arguments") {
		t.Errorf("%%%%profile --what: %v", err)
	}
}
