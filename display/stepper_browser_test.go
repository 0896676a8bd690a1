package display

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/graph"
)

// chromium returns the path of a Chromium or Chrome binary. Without one
// the test is skipped, except under CI=true, where it fails: CI installs
// Chromium so that the stepper's script is tested there.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH: CI must install it (apt-get install chromium) to test the trace stepper's script")
	}
	t.Skip("no chromium on PATH: the trace stepper's script is not tested in a browser (apt-get install chromium)")
	return ""
}

// stepperHarness defines pnHarness, which the page calls once its
// steppers are in place. For every stepper, in page order, it records what is shown (the steps the browser lays out, the
// body cells of the first table of the shown step, the position line),
// then moves the slider to step 3 as a user would (setting its value and
// firing input), clicks next once and previous twice, recording after
// each, and writes the records as JSON into #pn-test-result.
const stepperHarness = `function pnHarness(){
function shown(root){var out=[],ps=root.querySelectorAll(".pn-step");for(var i=0;i<ps.length;i++){if(ps[i].getClientRects().length>0)out.push(i);}return out;}
function cells(root){var v=shown(root);if(v.length!==1)return null;
var tab=root.querySelectorAll(".pn-step")[v[0]].querySelector("table"),rows=[];
for(var r=1;r<tab.rows.length;r++){var row=[];for(var c=1;c<tab.rows[r].cells.length;c++)row.push(tab.rows[r].cells[c].textContent);rows.push(row);}
return rows;}
function snap(root){var p=root.querySelector(".pn-pos");return {shown:shown(root),cells:cells(root),pos:p?p.textContent:""};}
var roots=document.querySelectorAll(".pn-stepper"),res=[];
for(var i=0;i<roots.length;i++){var root=roots[i],r={controls:root.querySelectorAll(".pn-controls").length};
r.before=snap(root);
var s=root.querySelector(".pn-slider");
if(s){s.value="3";s.dispatchEvent(new Event("input",{bubbles:true}));}
r.slid=snap(root);
var next=root.querySelector(".pn-next"),prev=root.querySelector(".pn-prev");
if(next)next.click();
r.next=snap(root);
if(prev){prev.click();prev.click();}
r.prev=snap(root);
res.push(r);}
document.getElementById("pn-test-result").textContent=JSON.stringify(res);
}`

// browserSnap is what the harness recorded of one stepper at one moment.
type browserSnap struct {
	Shown []int      `json:"shown"`
	Cells [][]string `json:"cells"`
	Pos   string     `json:"pos"`
}

// browserStepper is the harness's record of one stepper.
type browserStepper struct {
	Controls                 int
	Before, Slid, Next, Prev browserSnap
}

// onLoad runs the harness once the page has loaded.
const onLoad = `window.addEventListener("load",pnHarness);`

// classicNotebook inserts the output held in pnLater the way classic
// Notebook does (jQuery's append): the HTML goes into a detached element,
// each script runs as a copy added to the head and removed again, and
// only then, here 300 ms later, is the element attached to the page. The
// harness runs a second after that.
const classicNotebook = `window.addEventListener("load",function(){
var box=document.createElement("div");box.innerHTML=pnLater;
var ss=box.querySelectorAll("script");
for(var i=0;i<ss.length;i++){var c=document.createElement("script");c.text=ss[i].text;document.head.appendChild(c);document.head.removeChild(c);}
setTimeout(function(){document.body.insertBefore(box,document.getElementById("pn-test-result"));setTimeout(pnHarness,1000);},300);
});`

// runInChromium writes the outputs into one page with the harness and
// trigger (onLoad or classicNotebook, which inserts the outputs itself),
// loads it in headless Chromium and returns the harness's records.
func runInChromium(t *testing.T, trigger string, outputs ...string) []browserStepper {
	t.Helper()
	bin := chromium(t)
	dir := t.TempDir()
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"><title>stepper test</title></head><body>`
	for _, o := range outputs {
		if trigger == classicNotebook {
			// encoding/json escapes <, > and &, so the HTML cannot end
			// the script that holds it.
			js, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			page += `<script>var pnLater=` + string(js) + `;</script>`
			continue
		}
		page += `<div class="output">` + o + `</div>`
	}
	page += `<pre id="pn-test-result">harness did not run</pre><script>` + stepperHarness + "\n" + trigger + `</script></body></html>`
	file := filepath.Join(dir, "page.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--user-data-dir="+filepath.Join(dir, "profile"), "--virtual-time-budget=5000",
		"--dump-dom", "file://"+file)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	m := regexp.MustCompile(`(?s)<pre id="pn-test-result">(.*?)</pre>`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("the dumped DOM has no result:\n%.2000s\n%s", out, stderr.String())
	}
	var res []browserStepper
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &res); err != nil {
		t.Fatalf("harness result %q: %v", m[1], err)
	}
	return res
}

// distRows writes an n×n distance matrix as the browser shows it.
func distRows(n int, d []int32) [][]string {
	rows := make([][]string, n)
	for i := range rows {
		for j := 0; j < n; j++ {
			rows[i] = append(rows[i], graph.FormatDist(d[i*n+j]))
		}
	}
	return rows
}

// wantShown checks that exactly step want is shown and that its first
// table's leading columns read as the trace's rows.
func wantShown(t *testing.T, what string, got browserSnap, want int, rows [][]string) {
	t.Helper()
	if len(got.Shown) != 1 || got.Shown[0] != want {
		t.Errorf("%s: steps %v shown, want only %d", what, got.Shown, want)
		return
	}
	if len(got.Cells) != len(rows) {
		t.Errorf("%s: %d rows shown, want %d", what, len(got.Cells), len(rows))
		return
	}
	for i, row := range rows {
		if len(got.Cells[i]) < len(row) {
			t.Errorf("%s: row %d shows %v, want %v", what, i, got.Cells[i], row)
			continue
		}
		if g := strings.Join(got.Cells[i][:len(row)], " "); g != strings.Join(row, " ") {
			t.Errorf("%s: row %d shows %q, want %q", what, i, g, strings.Join(row, " "))
		}
	}
}

func TestStepperInChromium(t *testing.T) {
	fw := fwReference(example(t, "karaula-fig3.1"))
	dj := musapTrace()
	fwHTML := str(t, bundle(t, FWTrace(fw)), MIMEHTML)
	djHTML := str(t, bundle(t, DijkstraTrace(dj)), MIMEHTML)
	// Two FW outputs, a Dijkstra one, a copy of the first FW output (the
	// same id twice, as when a page repeats an output) and a Bellman-Ford
	// one: moving one stepper must leave the others alone.
	bf, _, err := bfRun(t, bfExample(t))
	if err != nil || len(bf.Passes) < 4 {
		t.Fatalf("Bellman-Ford trace of %d passes (%v), want at least 4", len(bf.Passes), err)
	}
	bfHTML := str(t, bundle(t, BFTrace(bf)), MIMEHTML)
	res := runInChromium(t, onLoad, fwHTML, str(t, bundle(t, FWTrace(fw)), MIMEHTML), djHTML, fwHTML, bfHTML)
	if len(res) != 5 {
		t.Fatalf("the harness saw %d steppers, want 5", len(res))
	}
	if strings.Join(distRows(fw.N, fw.Steps[0].Dist)[1], " ") == strings.Join(distRows(fw.N, fw.Steps[3].Dist)[1], " ") {
		t.Fatal("the example's D⁽⁰⁾ and D⁽³⁾ agree in row b: the test could not see the slider move")
	}
	fwState := func(i int) [][]string { return distRows(fw.N, fw.Steps[i].Dist) }
	for i, r := range []browserStepper{res[0], res[1], res[3]} {
		wantStepper(t, fmt.Sprintf("FW stepper %d", i), r, fwState, "step 4 of 6: k = 3")
	}
	// The Dijkstra and Bellman-Ford panels' first column is C; state 0 is
	// the initial one and state i the one after step or pass i.
	column := func(d []int32) [][]string {
		rows := make([][]string, len(d))
		for u, x := range d {
			rows[u] = []string{graph.FormatDist(x)}
		}
		return rows
	}
	wantStepper(t, "Dijkstra stepper", res[2], func(i int) [][]string {
		if i == 0 {
			return column(dj.Initial)
		}
		return column(dj.Steps[i-1].Dist)
	}, "step 4 of 6: settle b")
	wantStepper(t, "Bellman-Ford stepper", res[4], func(i int) [][]string {
		if i == 0 {
			return column(bf.Initial)
		}
		return column(bf.Passes[i-1].Dist)
	}, "step 4 of "+strconv.Itoa(len(bf.Passes)+1)+": pass 3")
}

// wantStepper checks one stepper as the harness moved it: one control bar,
// and state 0 shown before moving, 3 after the slider, 4 after next and 2
// after previous twice, each with the rows state gives, and the position
// line pos after the slider.
func wantStepper(t *testing.T, what string, r browserStepper, state func(i int) [][]string, pos string) {
	t.Helper()
	if r.Controls != 1 {
		t.Errorf("%s has %d control bars, want 1", what, r.Controls)
	}
	wantShown(t, what+" before moving", r.Before, 0, state(0))
	wantShown(t, what+" after the slider moved to 3", r.Slid, 3, state(3))
	wantShown(t, what+" after next", r.Next, 4, state(4))
	wantShown(t, what+" after previous twice", r.Prev, 2, state(2))
	if r.Slid.Pos != pos {
		t.Errorf("%s: position line %q after the slider moved, want %q", what, r.Slid.Pos, pos)
	}
}

func TestStepperInChromiumDetachedOutput(t *testing.T) {
	fw := fwReference(example(t, "karaula-fig3.1"))
	res := runInChromium(t, classicNotebook, str(t, bundle(t, FWTrace(fw)), MIMEHTML))
	if len(res) != 1 || res[0].Controls != 1 {
		t.Fatalf("the harness saw %d steppers (%+v), want one with controls", len(res), res)
	}
	wantShown(t, "FW inserted late, before moving", res[0].Before, 0, distRows(fw.N, fw.Steps[0].Dist))
	wantShown(t, "FW inserted late, after the slider moved to 3", res[0].Slid, 3, distRows(fw.N, fw.Steps[3].Dist))
}
