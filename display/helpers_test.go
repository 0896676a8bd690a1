package display

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"image"
	"image/png"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

// message is one call of a publisher.
type message struct {
	data, metadata map[string]any
	id             string
	update         bool
}

// recorder is a fake kernel publisher that keeps every message.
type recorder struct {
	mu   sync.Mutex
	msgs []message
}

func (r *recorder) publish(data, metadata map[string]any, id string, update bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, message{data, metadata, id, update})
}

func (r *recorder) all() []message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]message(nil), r.msgs...)
}

// wantContains fails t for each of wants that text, which what names, lacks.
func wantContains(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
}

// withPublisher connects a recorder for the duration of the test.
func withPublisher(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{}
	SetPublisher(r.publish)
	t.Cleanup(func() { SetPublisher(nil) })
	return r
}

// captureStdout swaps the text fallback's writer for a buffer.
func captureStdout(t *testing.T) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	outMu.Lock()
	old := stdout
	stdout = &buf
	outMu.Unlock()
	t.Cleanup(func() {
		outMu.Lock()
		stdout = old
		outMu.Unlock()
	})
	return &buf
}

// bundle returns r's data, failing the test when text/plain is missing.
func bundle(t *testing.T, r Renderer) map[string]any {
	t.Helper()
	data, _ := r.MIMEBundle()
	if _, ok := data[MIMEText].(string); !ok {
		t.Fatalf("%T bundle has no text/plain string: %v", r, data)
	}
	return data
}

func str(t *testing.T, data map[string]any, mime string) string {
	t.Helper()
	s, ok := data[mime].(string)
	if !ok {
		t.Fatalf("bundle has no %s string (keys: %v)", mime, keys(data))
	}
	return s
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// element is one XML element with its attributes and direct text.
type element struct {
	name  string
	attrs map[string]string
	text  string
}

// parseXML decodes a whole XML document (strictly) or HTML (leniently:
// HTML entities, unclosed void elements) and returns its elements in
// document order; any syntax error fails the test.
func parseXML(t *testing.T, doc string, lenient bool) []element {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(doc))
	if lenient {
		dec.Strict = false
		dec.Entity = xml.HTMLEntity
		dec.AutoClose = xml.HTMLAutoClose
	}
	var els []element
	var stack []int
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, doc[:min(len(doc), 400)])
		}
		switch x := tok.(type) {
		case xml.StartElement:
			e := element{name: x.Name.Local, attrs: map[string]string{}}
			for _, a := range x.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			els = append(els, e)
			stack = append(stack, len(els)-1)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				els[stack[len(stack)-1]].text += string(x)
			}
		}
	}
	return els
}

// cell is one table cell of an HTML table.
type cell struct {
	text    string
	header  bool
	changed bool // class "changed"
	marked  bool // the text is in a <mark>
	style   string
}

// parseTable returns the rows of the first HTML table in doc.
func parseTable(t *testing.T, doc string) [][]cell {
	t.Helper()
	var rows [][]cell
	inTable := false
	for _, e := range parseXML(t, "<div>"+doc+"</div>", true) {
		switch e.name {
		case "table":
			if inTable {
				return rows
			}
			inTable = true
		case "tr":
			rows = append(rows, nil)
		case "td", "th":
			if len(rows) == 0 {
				t.Fatalf("cell outside a row")
			}
			rows[len(rows)-1] = append(rows[len(rows)-1], cell{
				text: e.text, header: e.name == "th", changed: e.attrs["class"] == "changed", style: e.attrs["style"],
			})
		case "mark", "b": // inside the last cell: the tables hold no other markup
			if n := len(rows); n > 0 && len(rows[n-1]) > 0 {
				c := &rows[n-1][len(rows[n-1])-1]
				c.text += e.text
				c.marked = c.marked || e.name == "mark"
			}
		}
	}
	return rows
}

// decodePNG decodes base64 PNG bundle content.
func decodePNG(t *testing.T, b64 string) image.Image {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("PNG content is not base64: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	return img
}

// example loads one of the documents' graphs.
func example(t *testing.T, name string) *graph.Graph {
	t.Helper()
	g, err := graph.Example(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// fwReference runs the textbook Floyd-Warshall of [Karaula 2017] §3.1 on g,
// recording D and Π after every k: an independent source of traces.
func fwReference(g *graph.Graph) *graph.FWTrace {
	n := g.N()
	d := g.Dense()
	p := make([]int32, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			p[i*n+j] = graph.Nil
			if i != j && d[i*n+j] != graph.Inf {
				p[i*n+j] = int32(i)
			}
		}
	}
	tr := &graph.FWTrace{N: n, Labels: g.Labels(), Solver: "test-reference"}
	snap := func(k int) {
		tr.Steps = append(tr.Steps, graph.FWStep{K: k, Round: -1,
			Dist: append([]int32(nil), d...), Pred: append([]int32(nil), p...)})
	}
	snap(0)
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				a, b := d[i*n+k], d[k*n+j]
				if a != graph.Inf && b != graph.Inf && a+b < d[i*n+j] {
					d[i*n+j], p[i*n+j] = a+b, p[k*n+j]
				}
			}
		}
		snap(k + 1)
	}
	return tr
}

// svgImages returns the documents of the <img> elements in an HTML
// fragment whose source is a base64 SVG data URI, with their alt texts.
func svgImages(t *testing.T, doc string) (svgs, alts []string) {
	t.Helper()
	const prefix = "data:image/svg+xml;base64,"
	for _, e := range parseXML(t, "<div>"+doc+"</div>", true) {
		if e.name != "img" || !strings.HasPrefix(e.attrs["src"], prefix) {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(e.attrs["src"], prefix))
		if err != nil {
			t.Fatalf("SVG data URI is not base64: %v", err)
		}
		svgs, alts = append(svgs, string(raw)), append(alts, e.attrs["alt"])
	}
	return svgs, alts
}

// wantSVGImage checks that data's HTML is exactly one image of its SVG,
// with its text as the alt text.
func wantSVGImage(t *testing.T, data map[string]any) {
	t.Helper()
	svgs, alts := svgImages(t, str(t, data, MIMEHTML))
	if len(svgs) != 1 {
		t.Fatalf("HTML holds %d SVG images, want 1: %.300s", len(svgs), data[MIMEHTML])
	}
	if svgs[0] != str(t, data, MIMESVG) {
		t.Error("the HTML image is not the bundle's SVG document")
	}
	if alts[0] != str(t, data, MIMEText) {
		t.Errorf("alt text %q, want the text form %q", alts[0], data[MIMEText])
	}
}
