package display

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"html"
	"strings"
)

// stepPanel is one step of a stepper: a short label for the position line
// under the controls and the step's HTML.
type stepPanel struct {
	label string
	html  string
}

// Styles of the stepper's own elements (the panels bring theirs).
const (
	stepperTitleStyle = `font-weight:bold;margin-bottom:4px`
	stepHeadStyle     = `font-size:11px;color:#555;margin:6px 0 2px`
	stepStyle         = `margin-bottom:6px`
)

// maxStepperHTML is the most HTML a stepper's panels may take (bytes)
// before it keeps only the first three and the last: a whole trace of a
// 20-vertex graph with Π, each step two 20×20 tables, is about 1.4 MB.
const maxStepperHTML = 1 << 20

// fitPanels returns panels, or their first three and last when together
// they exceed maxStepperHTML, with a note that says so; elsewhere (a
// hint) tells the reader where to find the others.
func fitPanels(panels []stepPanel, elsewhere string) ([]stepPanel, string) {
	size := 0
	for _, p := range panels {
		size += len(p.html)
	}
	if size <= maxStepperHTML || len(panels) <= 4 {
		return panels, ""
	}
	kept := []stepPanel{panels[0], panels[1], panels[2], panels[len(panels)-1]}
	return kept, fmt.Sprintf("showing 4 of these %d steps: all of them would take %d kB of HTML (%s)", len(panels), size/1000, elsewhere)
}

// stepperID returns an element id that no other output of this or any
// other session is expected to share: "pn-steps-" and 16 random hex digits.
func stepperID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read does not fail (it crashes the program instead)
	return "pn-steps-" + hex.EncodeToString(b[:])
}

// stepperHTML writes panels as one self-contained stepper: a title, every
// step's HTML in order, the notes, and an inline script that adds a slider
// and previous/next buttons and shows one step at a time.
//
// Nothing is fetched and nothing talks to the kernel, so the view keeps
// working in a saved notebook and in nbconvert's HTML. Where scripts do not
// run (an untrusted notebook, a sanitizing export) there are no controls
// and every step stays visible, in order, each under its own heading.
// Every output gets its own element id, so several steppers in one page do
// not interfere; the script finds its stepper through that id.
//
// Panels beyond maxStepperHTML are left out (see fitPanels); elsewhere
// says where the reader finds them.
func stepperHTML(title string, panels []stepPanel, notes []string, elsewhere string) string {
	panels, cut := fitPanels(panels, elsewhere)
	if cut != "" {
		notes = append(notes, cut)
	}
	id := stepperID()
	var sb strings.Builder
	sb.WriteString(`<div id="` + id + `" class="pn-stepper">`)
	if title != "" {
		sb.WriteString(`<div style="` + stepperTitleStyle + `">` + html.EscapeString(title) + `</div>`)
	}
	sb.WriteString(`<div class="pn-steps">`)
	for i, p := range panels {
		fmt.Fprintf(&sb, `<div class="pn-step" data-step="%d" data-label="%s" style="%s">`, i, html.EscapeString(p.label), stepStyle)
		fmt.Fprintf(&sb, `<div class="pn-step-head" style="%s">step %d of %d</div>`, stepHeadStyle, i+1, len(panels))
		sb.WriteString(p.html)
		sb.WriteString(`</div>`)
	}
	sb.WriteString(`</div>`)
	for _, n := range notes {
		sb.WriteString(note(n).Data[MIMEHTML].(string))
	}
	sb.WriteString(`<script>` + strings.ReplaceAll(stepperScript, "@ID@", id) + `</script>`)
	sb.WriteString(`</div>`)
	return sb.String()
}

// stepperScript drives one stepper; @ID@ stands for its element id. It
// finds its stepper as its own parent (so that an output copied within a
// page still drives its own copy) or, where the front end does not say
// which script runs, by the id, waiting up to ten seconds for the output
// to be attached to the page (classic Notebook runs an output's scripts
// before it attaches the output). It marks the stepper as started so that
// a front end that runs it twice does not add a second set of controls.
// The current step is kept in the root's data-current attribute; the
// arrow keys move the slider natively.
const stepperScript = `(function(){
var me=document.currentScript,tries=0;
function find(){return me&&me.parentNode&&me.parentNode.id==="@ID@"?me.parentNode:document.getElementById("@ID@");}
function start(){
var root=find();
if(!root){if(++tries<100)setTimeout(start,100);return;}
if(root.getAttribute("data-ready"))return;
root.setAttribute("data-ready","1");
var box=root.querySelector(".pn-steps"),steps=[],i;
for(i=0;i<box.children.length;i++){if(box.children[i].className==="pn-step")steps.push(box.children[i]);}
var n=steps.length;if(n<2)return;
function el(tag,css){var e=document.createElement(tag);e.style.cssText=css;return e;}
var bar=el("div","display:flex;align-items:center;gap:8px;margin:4px 0;font-size:12px");
bar.className="pn-controls";
var prev=el("button","font-size:12px"),next=el("button","font-size:12px");
prev.type=next.type="button";prev.className="pn-prev";next.className="pn-next";
prev.textContent="\u25C0 previous";next.textContent="next \u25B6";
var range=el("input","width:240px");range.type="range";range.className="pn-slider";
range.min="0";range.max=String(n-1);range.step="1";range.value="0";
range.setAttribute("aria-label","step");
var pos=el("span","color:#555");pos.className="pn-pos";
bar.appendChild(prev);bar.appendChild(range);bar.appendChild(next);bar.appendChild(pos);
root.insertBefore(bar,box);
function show(k){
k=Math.max(0,Math.min(n-1,k|0));range.value=String(k);
for(var j=0;j<n;j++){steps[j].hidden=j!==k;steps[j].style.display=j===k?"":"none";}
prev.disabled=k===0;next.disabled=k===n-1;
pos.textContent="step "+(k+1)+" of "+n+": "+steps[k].getAttribute("data-label");
root.setAttribute("data-current",String(k));
}
prev.addEventListener("click",function(){show(+range.value-1);});
next.addEventListener("click",function(){show(+range.value+1);});
range.addEventListener("input",function(){show(+range.value);});
range.addEventListener("change",function(){show(+range.value);});
show(0);
}
start();
})();`
