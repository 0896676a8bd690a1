package display

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

func TestRawBundles(t *testing.T) {
	tests := []struct {
		name      string
		b         Bundle
		mime      string
		content   any
		plainText string
	}{
		{"text", Text("hello"), MIMEText, "hello", "hello"},
		{"html", HTML("<p>D<sup>(3)</sup> &amp; Π</p><p>next</p>"), MIMEHTML, "<p>D<sup>(3)</sup> &amp; Π</p><p>next</p>", "D(3) & Π\nnext"},
		{"markdown", Markdown("**bold**"), MIMEMarkdown, "**bold**", "**bold**"},
		{"latex", LaTeX(`$d^{(k)}_{ij}$`), MIMELaTeX, `$d^{(k)}_{ij}$`, `$d^{(k)}_{ij}$`},
		{"svg", SVG(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="20"></svg>`), MIMESVG,
			`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="20"></svg>`, "SVG image 10×20"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := bundle(t, tt.b)
			if got := data[tt.mime]; got != tt.content {
				t.Errorf("%s = %q, want %q", tt.mime, got, tt.content)
			}
			if got := tt.b.String(); got != tt.plainText {
				t.Errorf("text/plain = %q, want %q", got, tt.plainText)
			}
		})
	}
}

func TestSVGBundleCarriesItsImageAsHTML(t *testing.T) {
	doc := `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="20"><text fill="#d62728">a &amp; "b"</text></svg>`
	data := bundle(t, SVG(doc))
	wantSVGImage(t, data)
	// A group holding an SVG-only renderer embeds it as an image as well.
	svgOnly := Bundle{Data: map[string]any{MIMESVG: doc, MIMEText: "drawing"}}
	svgs, alts := svgImages(t, str(t, bundle(t, Row(svgOnly, Text("x"))), MIMEHTML))
	if len(svgs) != 1 || svgs[0] != doc || alts[0] != "drawing" {
		t.Errorf("Row of an SVG: images %q, alt %q", svgs, alts)
	}
}

func TestStripTagsDropsStyleAndSeparatesCells(t *testing.T) {
	got := stripTags(`<style>td{color:red}</style><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>&infin;</td></tr></table>`)
	if want := "a b\n1 ∞"; got != want {
		t.Errorf("stripTags = %q, want %q", got, want)
	}
}

func TestPNGBundle(t *testing.T) {
	var buf bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 7, 3))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	b := PNG(buf.Bytes())
	data, meta := b.MIMEBundle()
	got := decodePNG(t, str(t, data, MIMEPNG))
	if got.Bounds().Dx() != 7 || got.Bounds().Dy() != 3 {
		t.Errorf("decoded size %v, want 7×3", got.Bounds())
	}
	if r, _, _, _ := got.At(1, 1).RGBA(); r>>8 != 255 {
		t.Errorf("pixel (1,1) lost its red: %v", got.At(1, 1))
	}
	if want := "PNG image 7×3"; data[MIMEText] != want {
		t.Errorf("text = %q, want %q", data[MIMEText], want)
	}
	size, _ := meta[MIMEPNG].(map[string]any)
	if size["width"] != 7 || size["height"] != 3 {
		t.Errorf("metadata = %v, want width 7 height 3", meta)
	}
}

func TestPNGBundleRejectsOtherBytes(t *testing.T) {
	data := bundle(t, PNG([]byte("GIF89a not a png")))
	if _, ok := data[MIMEPNG]; ok {
		t.Error("non-PNG bytes produced an image/png entry")
	}
	if !strings.Contains(data[MIMEText].(string), "16 bytes are not a PNG image") {
		t.Errorf("text does not explain the problem: %q", data[MIMEText])
	}
}

func TestJSONBundle(t *testing.T) {
	data := bundle(t, JSON(map[string]any{"n": 5, "solver": "fw-hn"}))
	tree, ok := data[MIMEJSON].(map[string]any)
	if !ok || tree["n"] != 5.0 || tree["solver"] != "fw-hn" {
		t.Errorf("application/json = %#v, want the decoded object", data[MIMEJSON])
	}
	if !strings.Contains(data[MIMEText].(string), "\n  \"n\": 5") {
		t.Errorf("text is not indented JSON: %q", data[MIMEText])
	}

	bad := bundle(t, JSON(make(chan int)))
	if _, ok := bad[MIMEJSON]; ok || !strings.Contains(bad[MIMEText].(string), "cannot encode chan int") {
		t.Errorf("unencodable value: bundle %v", bad)
	}
}

func TestOfPicksViews(t *testing.T) {
	g := example(t, "karaula-fig3.1")
	r := &graph.AllPairs{N: 1, Dist: []int32{0}, Pred: []int32{graph.Nil}}
	s := &graph.SingleSource{Source: 0, Dist: []int32{0}}
	tests := []struct {
		v    any
		want string // type of the Renderer
	}{
		{g, "*display.GraphView"},
		{r, "*display.Group"},
		{&graph.AllPairs{N: 1, Dist: []int32{0}}, "*display.Matrix"},
		{s, "*display.Table"},
		{blockedTrace(), "*display.FWTraceView"},
		{musapTrace(), "*display.DijkstraTraceView"},
		{graph.Path{Vertices: []int{0}}, "display.Bundle"},
		{image.NewGray(image.Rect(0, 0, 2, 2)), "display.Bundle"},
		{errors.New("boom"), "display.Bundle"},
		{42, "display.Bundle"},
		{Text("x"), "display.Bundle"},
	}
	for _, tt := range tests {
		got := Of(tt.v)
		if name := fmt.Sprintf("%T", got); name != tt.want {
			t.Errorf("Of(%T) = %s, want %s", tt.v, name, tt.want)
		}
		bundle(t, got)
	}
	if got := Of(42).(Bundle).String(); got != "42" {
		t.Errorf("Of(42) text = %q", got)
	}
	if got := Of(errors.New("boom")).(Bundle).String(); got != "error: boom" {
		t.Errorf("Of(error) text = %q", got)
	}
	if data := bundle(t, Of(image.NewGray(image.Rect(0, 0, 2, 3)))); decodePNG(t, str(t, data, MIMEPNG)).Bounds().Dy() != 3 {
		t.Error("image.Image did not become its PNG")
	}
}

// Present gives the values this package draws their views, as Of does, and
// leaves every other value (paths and errors included) to the caller's
// text form.
func TestPresent(t *testing.T) {
	for _, v := range []any{example(t, "karaula-fig3.1"), &graph.AllPairs{N: 1, Dist: []int32{0}},
		&graph.SingleSource{Source: 0, Dist: []int32{0}}, blockedTrace(), musapTrace(), image.NewGray(image.Rect(0, 0, 1, 1)), Text("x")} {
		got, want := Present(v), Of(v)
		if got == nil || fmt.Sprintf("%T", got) != fmt.Sprintf("%T", want) {
			t.Errorf("Present(%T) = %T, want %T", v, got, want)
		}
	}
	for _, v := range []any{42, "s", errors.New("boom"), graph.Path{Vertices: []int{0}}, []int{1}} {
		if r := Present(v); r != nil {
			t.Errorf("Present(%T) = %T, want nil", v, r)
		}
	}
}
