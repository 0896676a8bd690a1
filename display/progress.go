package display

import (
	"fmt"
	"html"
	"strings"
	"sync"
	"time"
)

// Progress intervals: a notebook redraws a bar at most ten times a second,
// a terminal (no publisher, one line per redraw) once a second.
const (
	notebookInterval = 100 * time.Millisecond
	textInterval     = time.Second
)

// barWidth is the number of characters of the text bar.
const barWidth = 20

// Progress is a progress bar for long work, shown at once and redrawn in
// place (through update_display_data) as work is done:
//
//	pb := display.NewProgress("FW rounds", rounds)
//	for r := 0; r < rounds; r++ {
//		step(r)
//		pb.Add(1)
//	}
//	pb.Done()
//
// Redraws are throttled, so calling Add in a tight loop costs little; the
// final state always shows. A Progress is safe for concurrent use.
type Progress struct {
	mu       sync.Mutex
	title    string
	total    int
	done     int
	start    time.Time
	finished time.Time // zero until Done
	last     time.Time // time of the last redraw
	handle   *Handle
	now      func() time.Time // the clock; tests replace it
}

// NewProgress shows a bar for total units of work (total ≤ 0: unknown,
// the bar then counts without a percentage).
func NewProgress(title string, total int) *Progress {
	return newProgress(title, total, time.Now)
}

func newProgress(title string, total int, now func() time.Time) *Progress {
	p := &Progress{title: title, total: total, now: now}
	p.start = now()
	p.last = p.start
	p.handle = New(p.snapshot())
	return p
}

// Add records n more units of work done and redraws if the last redraw is
// long enough ago (or the work is complete).
func (p *Progress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	p.redraw(false)
}

// Set records that done units of work are done in all.
func (p *Progress) Set(done int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = done
	p.redraw(false)
}

// Report records that done of total units are done, changing the total
// if it differs. Its signature is that of the solvers' Progress options:
//
//	pb := display.NewProgress("Floyd-Warshall", g.N())
//	r, err := cpu.FloydWarshallBlocked(Ctx(), g, cpu.FWOptions{Progress: pb.Report})
//	pb.Done()
func (p *Progress) Report(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = done, total
	p.redraw(false)
}

// Done marks the work finished (at whatever count it reached) and draws
// the final state with the total time.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished.IsZero() {
		p.finished = p.now()
	}
	p.redraw(true)
}

// Err returns the error of the last redraw (writing to standard output
// without a kernel), if any.
func (p *Progress) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.handle.Err()
}

// ID returns the display id under which the bar is shown and updated.
func (p *Progress) ID() string { return p.handle.ID() }

// redraw updates the shown bar unless it was redrawn less than an interval
// ago; force (Done) and reaching the total always redraw. p.mu is held.
func (p *Progress) redraw(force bool) {
	now := p.now()
	interval := textInterval
	if hasPublisher() {
		interval = notebookInterval
	}
	complete := p.total > 0 && p.done >= p.total
	if !force && !complete && now.Sub(p.last) < interval {
		return
	}
	p.last = now
	p.handle.Update(p.snapshot())
}

// snapshot renders the current state as a bundle; p.mu is held (or p is
// not yet shared).
func (p *Progress) snapshot() Bundle {
	end := p.finished
	if end.IsZero() {
		end = p.now()
	}
	elapsed := end.Sub(p.start)
	frac := 0.0
	if p.total > 0 {
		frac = min(max(float64(p.done)/float64(p.total), 0), 1)
	}
	var timing string
	switch {
	case !p.finished.IsZero():
		timing = "done in " + roundDuration(elapsed)
	case p.total > 0 && p.done > 0 && p.done < p.total:
		left := time.Duration(float64(elapsed) * float64(p.total-p.done) / float64(p.done))
		timing = roundDuration(elapsed) + " elapsed, " + roundDuration(left) + " left"
	default:
		timing = roundDuration(elapsed) + " elapsed"
	}
	var text, count string
	if p.total > 0 {
		filled := int(frac*barWidth + 0.5)
		count = fmt.Sprintf("%d%% %d/%d", int(frac*100), p.done, p.total)
		text = fmt.Sprintf("[%s%s] %s %s", strings.Repeat("#", filled), strings.Repeat("-", barWidth-filled), count, timing)
	} else {
		count = fmt.Sprintf("%d done", p.done)
		text = count + " " + timing
	}
	if p.title != "" {
		text = p.title + " " + text
	}
	color := "#2c7be5"
	if !p.finished.IsZero() {
		color = "#2e9e5b"
	}
	bar := ""
	if p.total > 0 {
		bar = fmt.Sprintf(`<div style="display:inline-block;vertical-align:middle;width:240px;height:12px;background:#e9ecef;border-radius:3px;overflow:hidden"><div style="width:%.1f%%;height:100%%;background:%s"></div></div> `,
			frac*100, color)
	}
	htmlText := fmt.Sprintf(`<div style="font-family:monospace;font-size:12px"><b>%s</b> %s%s <span style="color:#555">%s</span></div>`,
		html.EscapeString(p.title), bar, html.EscapeString(count), html.EscapeString(timing))
	return Bundle{Data: map[string]any{MIMEHTML: htmlText, MIMEText: text}}
}

// roundDuration writes d with a precision that suits its size.
func roundDuration(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return d.Round(time.Second).String()
	case d >= time.Minute:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Millisecond).String()
}
