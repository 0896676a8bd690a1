package display

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

// scriptRE matches an inline script; HTML reads its body as raw text,
// which the XML parser of the tests cannot.
var scriptRE = regexp.MustCompile(`(?s)<script>(.*?)</script>`)

// withoutScripts drops the inline scripts of an HTML fragment, failing when
// a script body could end early or is not the stepper's.
func withoutScripts(t *testing.T, h string) string {
	t.Helper()
	for _, m := range scriptRE.FindAllStringSubmatch(h, -1) {
		if strings.Contains(m[1], "</") || strings.Contains(m[1], "<!--") {
			t.Errorf("a script body holds a sequence that ends it early in HTML")
		}
		if !strings.Contains(m[1], `getElementById("pn-steps-`) {
			t.Errorf("an unexpected script: %.100s", m[1])
		}
	}
	return scriptRE.ReplaceAllString(h, "")
}

// stepElements returns the stepper's step panels (class pn-step) of an
// HTML fragment, in document order.
func stepElements(t *testing.T, h string) []element {
	t.Helper()
	var out []element
	for _, e := range parseXML(t, "<div>"+withoutScripts(t, h)+"</div>", true) {
		if e.attrs["class"] == "pn-step" {
			out = append(out, e)
		}
	}
	return out
}

// checkSelfContained fails when an HTML fragment refers to anything outside
// itself, hides anything without its script, or repeats an element id; it
// returns the ids.
func checkSelfContained(t *testing.T, h string) []string {
	t.Helper()
	var ids []string
	seen := map[string]bool{}
	for _, e := range parseXML(t, "<div>"+withoutScripts(t, h)+"</div>", true) {
		for _, a := range []string{"src", "href", "srcset", "action", "formaction", "background"} {
			if v, ok := e.attrs[a]; ok {
				t.Errorf("<%s> has %s=%q: the output must not load anything", e.name, a, v)
			}
		}
		if _, ok := e.attrs["hidden"]; ok || strings.Contains(strings.ReplaceAll(e.attrs["style"], " ", ""), "display:none") {
			t.Errorf("<%s> is hidden without the script: steps must stay visible where scripts do not run", e.name)
		}
		if e.name == "input" || e.name == "button" || e.name == "link" || e.name == "iframe" {
			t.Errorf("static <%s>: the controls come from the script, so they cannot show dead where it does not run", e.name)
		}
		if id, ok := e.attrs["id"]; ok {
			if seen[id] {
				t.Errorf("id %q repeated", id)
			}
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, bad := range []string{"http:", "https:", "url(", "@import", "import(", "fetch(", "XMLHttpRequest", "Jupyter", "IPython", "require("} {
		if strings.Contains(h, bad) {
			t.Errorf("the HTML contains %q: it must not reach out of the page or to the kernel", bad)
		}
	}
	return ids
}

// stepperIDs returns the ids of the steppers in h, failing unless each
// stepper's script addresses exactly its own root.
func stepperIDs(t *testing.T, h string) []string {
	t.Helper()
	ids := regexp.MustCompile(`<div id="(pn-steps-[0-9a-f]{16})" class="pn-stepper">`).FindAllStringSubmatch(h, -1)
	scripts := regexp.MustCompile(`getElementById\("([^"]*)"\)`).FindAllStringSubmatch(h, -1)
	if len(ids) != len(scripts) {
		t.Fatalf("%d steppers but %d scripts", len(ids), len(scripts))
	}
	var out []string
	for i := range ids {
		if scripts[i][1] != ids[i][1] {
			t.Errorf("stepper %s runs a script for %s", ids[i][1], scripts[i][1])
		}
		out = append(out, ids[i][1])
	}
	return out
}

func TestFWStepperHoldsEveryStep(t *testing.T) {
	tr := fwReference(example(t, "karaula-fig3.1"))
	data := bundle(t, FWTrace(tr).OneBased())
	h := str(t, data, MIMEHTML)
	checkSelfContained(t, h)
	if got := stepperIDs(t, h); len(got) != 1 {
		t.Fatalf("%d steppers, want 1", len(got))
	}
	steps := stepElements(t, h)
	if len(steps) != len(tr.Steps) {
		t.Fatalf("%d step panels, want %d", len(steps), len(tr.Steps))
	}
	for i, e := range steps {
		if e.attrs["data-step"] != strconv.Itoa(i) || e.attrs["data-label"] != tr.Steps[i].Title() {
			t.Errorf("panel %d: data-step %q, label %q; want %d, %q", i, e.attrs["data-step"], e.attrs["data-label"], i, tr.Steps[i].Title())
		}
	}
	// The panels hold D and Π in order; D of each step reads as the trace.
	tabs := tables(t, h)
	if len(tabs) != 2*len(tr.Steps) {
		t.Fatalf("%d tables, want %d", len(tabs), 2*len(tr.Steps))
	}
	n := tr.N
	for s, step := range tr.Steps {
		rows := tabs[2*s]
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				c := rows[i+1][j+1]
				if want := graph.FormatDist(step.Dist[i*n+j]); c.text != want {
					t.Errorf("step %d D[%d][%d] shows %q, want %q", s, i, j, c.text, want)
				}
				// The pivot row and column k (vertex k-1 from 0) are
				// shaded; nothing is at the initial step.
				pivot := step.K > 0 && (i == step.K-1 || j == step.K-1)
				if shaded := strings.Contains(c.style, pivotColor); shaded != pivot {
					t.Errorf("step %d D[%d][%d]: pivot shading %v, want %v", s, i, j, shaded, pivot)
				}
			}
		}
	}
	if !strings.Contains(h, "k = 3: pivot row and column c") {
		t.Error("the k = 3 panel does not name its pivot")
	}
	// Text keeps every step, one below the other, without markup.
	text := str(t, data, MIMEText)
	for _, s := range tr.Steps {
		if !strings.Contains(text, s.Title()) {
			t.Errorf("text lacks %q", s.Title())
		}
	}
	if strings.ContainsAny(text, "<>") {
		t.Error("the text form holds markup")
	}
}

func TestStepperIDsDifferPerOutput(t *testing.T) {
	tr := fwReference(example(t, "karaula-fig3.1"))
	var all []string
	for range 3 {
		all = append(all, stepperIDs(t, str(t, bundle(t, FWTrace(tr)), MIMEHTML))...)
	}
	all = append(all, stepperIDs(t, str(t, bundle(t, DijkstraTrace(musapTrace())), MIMEHTML))...)
	// One page holding all four outputs still has unique ids.
	seen := map[string]bool{}
	for _, id := range all {
		if seen[id] {
			t.Fatalf("two outputs share the id %s", id)
		}
		seen[id] = true
	}
	if len(all) != 4 {
		t.Fatalf("%d stepper ids, want 4", len(all))
	}
}

func TestDijkstraStepperShowsSettledAndRelaxed(t *testing.T) {
	tr := musapTrace()
	h := str(t, bundle(t, DijkstraTrace(tr)), MIMEHTML)
	checkSelfContained(t, h)
	steps := stepElements(t, h)
	if len(steps) != len(tr.Steps)+1 {
		t.Fatalf("%d panels, want %d", len(steps), len(tr.Steps)+1)
	}
	if steps[0].attrs["data-label"] != "initial" || steps[2].attrs["data-label"] != "settle a" {
		t.Errorf("labels %q, %q", steps[0].attrs["data-label"], steps[2].attrs["data-label"])
	}
	tabs := tables(t, h)
	// Step 2 settles a and lowers b (7→5), c (∞→10) and d (∞→8).
	rows := tabs[2]
	for u, want := range []struct {
		c, state string
		changed  bool
	}{{"0", "settled (step 1)", false}, {"2", "settled now", false}, {"5", "unsettled", true}, {"10", "unsettled", true}, {"8", "unsettled", true}} {
		r := rows[u+1]
		if r[1].text != want.c || r[2].text != want.state || r[1].changed != want.changed || r[1].marked != want.changed {
			t.Errorf("step 2 row %s: C %q (changed %v), state %q; want %q (%v), %q", tr.Labels[u], r[1].text, r[1].changed, r[2].text, want.c, want.changed, want.state)
		}
		if settled := strings.Contains(r[0].style, pivotColor); settled != (u == 1) {
			t.Errorf("step 2 row %s: settled shading %v", tr.Labels[u], settled)
		}
	}
	if !strings.Contains(h, "relaxed arcs: a→b (C 7 → 5), a→c (C ∞ → 10), a→d (C ∞ → 8)") {
		t.Error("step 2 does not list its relaxed arcs")
	}
	if !strings.Contains(h, "relaxed arcs: none lowered a distance") {
		t.Error("the steps that lower nothing do not say so")
	}
	// The frontier table follows the stepper.
	if len(tabs) != len(steps)+1 || !strings.Contains(h, "frontier iterations") {
		t.Errorf("%d tables, want the %d panels and the frontier table", len(tabs), len(steps))
	}
}

// bigFWTrace is a plain trace of n vertices, every step changing one cell.
func bigFWTrace(n int) *graph.FWTrace {
	tr := &graph.FWTrace{N: n, Solver: "test"}
	d := make([]int32, n*n)
	for k := 0; k <= n; k++ {
		if k > 0 {
			d[(k-1)*n] = int32(k)
		}
		tr.Steps = append(tr.Steps, graph.FWStep{K: k, Round: -1, Dist: append([]int32(nil), d...)})
	}
	return tr
}

func TestStepperCapsLargeTraces(t *testing.T) {
	n := graph.MaxTraceN
	data := bundle(t, FWTrace(bigFWTrace(n)))
	h := str(t, data, MIMEHTML)
	checkSelfContained(t, h)
	if got := len(stepElements(t, h)); got != 4 {
		t.Errorf("%d panels for n=%d, want the first three steps and the last", got, n)
	}
	want := fmt.Sprintf("showing 4 of %d steps", n+1)
	if !strings.Contains(h, want) || !strings.Contains(str(t, data, MIMEText), want) {
		t.Errorf("the output does not say %q", want)
	}
	if len(h) > 1<<20 {
		t.Errorf("HTML of %d bytes for n=%d", len(h), n)
	}

	// n=20 with Π is within the cell cap (every step in text) but its 21
	// steps of two 20×20 tables exceed the HTML budget.
	tr := bigFWTrace(20)
	for i := range tr.Steps {
		tr.Steps[i].Pred = make([]int32, 20*20)
	}
	data = bundle(t, FWTrace(tr))
	h = str(t, data, MIMEHTML)
	if got := len(stepElements(t, h)); got != 4 || len(h) > maxStepperHTML {
		t.Errorf("%d panels in %d bytes for n=20, want 4 within %d", got, len(h), maxStepperHTML)
	}
	if !strings.Contains(h, "showing 4 of these 21 steps: all of them would take") || !strings.Contains(str(t, data, MIMEText), "k = 17") {
		t.Error("the HTML does not say it left steps out, or the text lost them")
	}
}
