package plotcheck

import (
	"strings"
	"testing"
)

// The checks catch what the old renderer drew: a log axis with a decade
// unlabelled, a label past the right edge, a title past the left, and a
// series in two colours.
func TestChecksCatchBadPictures(t *testing.T) {
	const plot = `<svg class="pathnotes-plot" data-axes="x lin 0 10; y log 1 800" viewBox="0 0 400 300">
<path d="M0,0L20,0" style="fill:none;stroke:#111111"/>
<text class="legend" x="30" y="-250" style="font-size:12px">a</text>
<path d="M0,0L20,0" style="fill:none;stroke:#111111"/>
<text class="legend" x="30" y="-230" style="font-size:12px">b</text>
<text class="tick-x" x="100" y="-20" style="font-size:10px">1000</text>
<text class="tick-y" x="10" y="-100" style="font-size:10px">1</text>
<text class="tick-y" x="10" y="-200" style="font-size:10px">10</text>
<text class="legend-key" x="380" y="-210" style="font-size:10px">10000000</text>
</svg>`
	p, err := Read(plot)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p.Problems(), "\n")
	for _, want := range []string{"x axis has 1 tick labels", `"10000000"`, "no label between 10 and 800"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	if got := Colors([]Picture{p}, []string{"plot"}); len(got) != 1 || !strings.Contains(got[0], "both drawn in #111111") {
		t.Errorf("Colors = %q", got)
	}
	q := p
	q.Series = map[string]string{"a": "#222222"}
	if got := Colors([]Picture{p, q}, []string{"first", "second"}); !strings.Contains(strings.Join(got, "\n"), `second: series "a" is drawn in #222222, but in #111111 at first`) {
		t.Errorf("Colors = %q", got)
	}
	const graph = `<svg width="200" height="100" viewBox="0 0 200 100" font-size="12"><g transform="translate(0 20)">
<text class="title" x="100" y="18" text-anchor="middle" font-size="14" font-weight="bold">a title far too long for this drawing</text>
<text x="4" y="70">inside</text></g></svg>`
	g, err := Read(graph)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Problems(); len(got) != 1 || !strings.Contains(got[0], "a title far too long") {
		t.Errorf("graph problems = %q", got)
	}
}

// Notebook finds SVG outputs and the SVG images of HTML outputs.
func TestNotebook(t *testing.T) {
	const nb = `{"cells": [{"outputs": []}, {"outputs": [{"data": {"image/svg+xml": ["<svg>", "</svg>"]}},
{"data": {"text/html": "<div><img src=\"data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=\"><img src=\"data:image/svg+xml;base64,PHN2Zy8+\"></div>"}}]}]}`
	found, err := Notebook([]byte(nb))
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 3 || found[0].Cell != 1 || found[0].SVG != "<svg></svg>" || found[2].SVG != "<svg/>" {
		t.Errorf("found %+v", found)
	}
}
