package display

import (
	"fmt"
	"html"
	"sort"
	"strconv"
	"strings"

	"github.com/pathnotes/pathnotes/gpu"
)

// ProfileView shows profiles of kernel launches (gpu.Profile,
// gpu.StartProfile, the %%profile magic) side by side: one column per
// kernel, the launches of a kernel summed (gpu.Combine). The numbers that
// decide speed are highlighted: sectors per global request and the share
// of the moved bytes that were asked for (coalescing), shared-memory bank
// conflicts, divergent branches and occupancy. Under the table, the
// instructions with the most sectors or conflicts, and a reading of the
// numbers in plain words.
type ProfileView struct {
	kernels []*gpu.LaunchProfile
	err     error
}

// Profile shows the launches, combined per kernel and shape.
func Profile(launches ...*gpu.LaunchProfile) *ProfileView {
	v := &ProfileView{kernels: gpu.Combine(launches)}
	if len(launches) == 0 {
		v.err = fmt.Errorf("display: Profile: no launches (was a kernel launched while the profiler ran?)")
	}
	return v
}

// Err returns the reason the view cannot show, if any.
func (v *ProfileView) Err() error { return v.err }

// Highlight classes of a cell.
const (
	plain = iota
	good
	bad
)

// profileCell is one cell of the profile table.
type profileCell struct {
	text string
	mark int
}

// profileRow is one measure across the kernels.
type profileRow struct {
	name  string
	cells []profileCell
}

// The highlight styles: a number that says the kernel does well, and one
// that says it wastes something.
const (
	goodStyle = `;background:#dcefdc;font-weight:bold`
	badStyle  = `;background:#f8d0d0;font-weight:bold`
)

// rows builds the table's rows, leaving out measures no kernel has.
func (v *ProfileView) rows() []profileRow {
	var rows []profileRow
	add := func(name string, cell func(lp *gpu.LaunchProfile) profileCell) {
		r := profileRow{name: name}
		any := false
		for _, lp := range v.kernels {
			c := cell(lp)
			any = any || c.text != "" && c.text != "—"
			r.cells = append(r.cells, c)
		}
		if any {
			rows = append(rows, r)
		}
	}
	counted := func(f func(p *gpu.ProfileCounts) profileCell) func(lp *gpu.LaunchProfile) profileCell {
		return func(lp *gpu.LaunchProfile) profileCell {
			if lp.Counts == nil {
				return profileCell{text: "—"}
			}
			return f(lp.Counts)
		}
	}
	if v.device() == "" {
		add("device", func(lp *gpu.LaunchProfile) profileCell { return profileCell{text: lp.Device} })
	}
	add("launches", func(lp *gpu.LaunchProfile) profileCell { return profileCell{text: strconv.Itoa(lp.Launches)} })
	add("grid × block", func(lp *gpu.LaunchProfile) profileCell {
		g := "several grids"
		if lp.Grid != (gpu.Dim3{}) {
			g = lp.Grid.String()
		}
		return profileCell{text: g + " × " + lp.Block.String()}
	})
	add("warps launched", counted(func(p *gpu.ProfileCounts) profileCell { return profileCell{text: count(p.Warps)} }))
	add("warp instructions", counted(func(p *gpu.ProfileCounts) profileCell { return profileCell{text: count(p.Instructions)} }))
	add("threads per warp instruction", counted(func(p *gpu.ProfileCounts) profileCell {
		avg := p.AvgThreads()
		return profileCell{text: fmt.Sprintf("%.1f of 32", avg), mark: markIf(avg >= 31, avg < 24)}
	}))
	add("branches (divergent)", counted(func(p *gpu.ProfileCounts) profileCell {
		if p.Branches == 0 {
			return profileCell{text: "0"}
		}
		return profileCell{text: fmt.Sprintf("%s (%s)", count(p.Branches), count(p.Divergent)), mark: markIf(p.Divergent == 0, p.Divergent*10 > p.Branches)}
	}))
	for kind, name := range gpu.AccessNames {
		has := func(p *gpu.ProfileCounts) bool { return p.Global[kind].Requests > 0 }
		add("global "+name+"s: requests", counted(func(p *gpu.ProfileCounts) profileCell {
			if !has(p) {
				return profileCell{}
			}
			return profileCell{text: count(p.Global[kind].Requests)}
		}))
		add("  sectors per request", counted(func(p *gpu.ProfileCounts) profileCell {
			if !has(p) {
				return profileCell{}
			}
			c := p.Global[kind]
			return profileCell{text: fmt.Sprintf("%.1f", c.SectorsPerRequest()), mark: markIf(used(c) >= 0.9, used(c) < 0.5)}
		}))
		add("  bytes asked / moved", counted(func(p *gpu.ProfileCounts) profileCell {
			if !has(p) {
				return profileCell{}
			}
			c := p.Global[kind]
			return profileCell{text: fmt.Sprintf("%s / %s (%.0f%%)", bytesText(c.Bytes), bytesText(c.Moved()), 100*used(c)),
				mark: markIf(used(c) >= 0.9, used(c) < 0.5)}
		}))
	}
	for kind, name := range gpu.AccessNames {
		has := func(p *gpu.ProfileCounts) bool { return p.Shared[kind].Requests > 0 }
		add("shared "+name+"s: requests", counted(func(p *gpu.ProfileCounts) profileCell {
			if !has(p) {
				return profileCell{}
			}
			return profileCell{text: count(p.Shared[kind].Requests)}
		}))
		if kind == gpu.AccessAtomic {
			continue
		}
		add("  bank conflicts (extra wavefronts)", counted(func(p *gpu.ProfileCounts) profileCell {
			if !has(p) {
				return profileCell{}
			}
			c := p.Shared[kind]
			return profileCell{text: fmt.Sprintf("%s (%.2f per request)", count(c.Conflicts), perOf(c.Conflicts, c.Requests)),
				mark: markIf(c.Conflicts == 0, c.Conflicts*4 > c.Requests)}
		}))
	}
	add("registers per thread", func(lp *gpu.LaunchProfile) profileCell {
		if lp.Registers == 0 {
			return profileCell{text: "unknown (PTX)"}
		}
		return profileCell{text: strconv.Itoa(lp.Registers)}
	})
	add("shared memory per block", func(lp *gpu.LaunchProfile) profileCell { return profileCell{text: bytesText(uint64(lp.SharedBytes))} })
	add("occupancy", func(lp *gpu.LaunchProfile) profileCell {
		o := lp.Occupancy
		if o.MaxWarpsPerSM == 0 {
			return profileCell{text: "unknown"}
		}
		f := o.Fraction()
		return profileCell{text: fmt.Sprintf("%.0f%% (%d of %d warps; by %s)", 100*f, o.WarpsPerSM, o.MaxWarpsPerSM, o.Limiter),
			mark: markIf(f >= 0.75, f < 0.5)}
	})
	return rows
}

// used is the share of the moved bytes that the lanes asked for, at most
// 1 (lanes that share a word ask for more than moves).
func used(c gpu.MemCounts) float64 {
	if c.Sectors == 0 {
		return 0
	}
	return min(1, float64(c.Bytes)/float64(c.Moved()))
}

func perOf(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func markIf(isGood, isBad bool) int {
	switch {
	case isBad:
		return bad
	case isGood:
		return good
	}
	return plain
}

// count formats a count with thousands separators.
func count(n uint64) string {
	s := strconv.FormatUint(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// bytesText formats a byte count in B, KiB, MiB or GiB.
func bytesText(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// hotLine is an instruction worth a look: the most sectors or conflicts.
type hotLine struct {
	kernel string
	line   gpu.LineCounts
	shared bool
	score  uint64
}

// hotLines returns each kernel's instructions with the most global
// sectors and with any bank conflicts, at most perKernel of each kernel.
func (v *ProfileView) hotLines(perKernel int) []hotLine {
	var out []hotLine
	for _, lp := range v.kernels {
		if lp.Counts == nil {
			continue
		}
		var hs []hotLine
		for _, l := range lp.Counts.Lines {
			if l.Access < 0 {
				continue
			}
			if l.Global.Sectors > 0 {
				hs = append(hs, hotLine{kernel: lp.Kernel, line: l, score: l.Global.Sectors})
			}
			if l.Shared.Conflicts > 0 {
				hs = append(hs, hotLine{kernel: lp.Kernel, line: l, shared: true, score: l.Shared.Conflicts})
			}
		}
		sort.SliceStable(hs, func(i, j int) bool { return hs[i].score > hs[j].score })
		out = append(out, hs[:min(perKernel, len(hs))]...)
	}
	return out
}

// instruction names an instruction by where and what it is.
func instruction(l gpu.LineCounts) string {
	if l.SourceLine > 0 {
		return strings.TrimSuffix(where(l), ")") + ": " + l.Text + ")"
	}
	return where(l) + " (" + l.Text + ")"
}

// where names an instruction: its PTX line and, with .loc, its source line.
func where(l gpu.LineCounts) string {
	s := "PTX line " + strconv.Itoa(l.Line)
	if l.SourceLine > 0 {
		file := l.File
		if i := strings.LastIndexByte(file, '/'); i >= 0 {
			file = file[i+1:]
		}
		s = fmt.Sprintf("%s line %d (%s)", file, l.SourceLine, s)
	}
	return s
}

// hotRow is the hot line as table cells.
func (h hotLine) cells() []string {
	l := h.line
	kind := gpu.AccessNames[l.Access]
	if h.shared {
		c := l.Shared
		return []string{h.kernel, where(l), l.Text, "shared " + kind, count(c.Requests),
			fmt.Sprintf("%.1f wavefronts per request", perOf(c.Wavefronts, c.Requests))}
	}
	c := l.Global
	return []string{h.kernel, where(l), l.Text, "global " + kind, count(c.Requests),
		fmt.Sprintf("%.1f sectors per request, %.0f%% of the bytes used", c.SectorsPerRequest(), 100*used(c))}
}

// Reading returns the plain-language reading of the profile, a sentence or
// a few per kernel.
func (v *ProfileView) Reading() []string {
	var out []string
	emulated := false
	for _, lp := range v.kernels {
		name := lp.Kernel
		if lp.Counts == nil {
			out = append(out, name+": the card's counters need Nsight Compute (ncu), the emulator (PATHNOTES_GPU=emu) counts them; "+occupancyReading(lp)+".")
			continue
		}
		emulated = true
		p := lp.Counts
		var s []string
		if g := worstGlobal(p); g != nil {
			s = append(s, globalReading(*g))
		}
		if sh := worstShared(p); sh != nil {
			c := sh.Shared
			waves := perOf(c.Wavefronts, c.Requests)
			s = append(s, fmt.Sprintf("each warp's shared %s at %s takes %.1f wavefronts instead of 1: lanes ask one bank for different words (a %.0f-way bank conflict)",
				gpu.AccessNames[sh.Access], instruction(*sh), waves, waves))
		} else if p.Shared[gpu.AccessLoad].Requests+p.Shared[gpu.AccessStore].Requests > 0 {
			s = append(s, "shared memory without bank conflicts")
		}
		if p.Divergent > 0 {
			s = append(s, fmt.Sprintf("%s of %s branches diverge, and a warp instruction runs %.1f of 32 threads on average",
				count(p.Divergent), count(p.Branches), p.AvgThreads()))
		}
		s = append(s, occupancyReading(lp))
		out = append(out, name+": "+strings.Join(s, "; ")+".")
	}
	if emulated {
		out = append(out, "Counted by the PTX emulator, per PTX instruction. A card runs the machine code its compiler makes of the PTX: "+
			"for the lab's and the documents' kernels its global requests and sectors and its bank conflicts are the emulator's, "+
			"while branches and instructions differ (docs/cell-kernels.md compares them with Nsight Compute).")
	}
	return out
}

// worstGlobal returns the global load or store that moves the most
// sectors, nil if none.
func worstGlobal(p *gpu.ProfileCounts) *gpu.LineCounts {
	var w *gpu.LineCounts
	for i := range p.Lines {
		l := &p.Lines[i]
		if l.Access >= 0 && l.Global.Sectors > 0 && (w == nil || l.Global.Sectors > w.Global.Sectors) {
			w = l
		}
	}
	return w
}

// worstShared returns the shared access with the most conflicts, nil if
// none has any.
func worstShared(p *gpu.ProfileCounts) *gpu.LineCounts {
	var w *gpu.LineCounts
	for i := range p.Lines {
		l := &p.Lines[i]
		if l.Shared.Conflicts > 0 && (w == nil || l.Shared.Conflicts > w.Shared.Conflicts) {
			w = l
		}
	}
	return w
}

// globalReading says whether the access l coalesces.
func globalReading(l gpu.LineCounts) string {
	c := l.Global
	kind := gpu.AccessNames[l.Access]
	asked := perOf(c.Bytes, c.Requests)
	sectors := c.SectorsPerRequest()
	head := fmt.Sprintf("each warp's global %s at %s touches %.1f sectors (%.0f bytes) for %.0f bytes asked",
		kind, instruction(l), sectors, sectors*gpu.SectorBytes, asked)
	switch u := used(c); {
	case float64(c.Bytes) > 1.5*float64(c.Moved()):
		return head + ": lanes share words (a broadcast), one sector serves many"
	case u >= 0.9:
		return head + ": coalesced"
	case u < 0.5:
		return fmt.Sprintf("%s: not coalesced, %.0f%% of the bytes moved are used", head, 100*u)
	default:
		return fmt.Sprintf("%s: partly coalesced, %.0f%% of the bytes moved are used", head, 100*u)
	}
}

// occupancyReading says what occupancy the launch allows and why.
func occupancyReading(lp *gpu.LaunchProfile) string {
	o := lp.Occupancy
	if o.MaxWarpsPerSM == 0 {
		return "occupancy unknown"
	}
	s := fmt.Sprintf("occupancy %.0f%%: %d blocks of %d threads per multiprocessor, limited by %s",
		100*o.Fraction(), o.BlocksPerSM, lp.Block.Threads(), o.Limiter)
	if lp.Registers == 0 {
		s += " (registers unknown in PTX: this is the limit of threads and shared memory)"
	}
	return s
}

// device is the device every kernel ran on, "" when they ran on several.
func (v *ProfileView) device() string {
	d := v.kernels[0].Device
	for _, lp := range v.kernels[1:] {
		if lp.Device != d {
			return ""
		}
	}
	return d
}

// title is the table's caption.
func (v *ProfileView) title() string {
	if d := v.device(); d != "" {
		return "Kernel profile on " + d
	}
	return "Kernel profile"
}

// header is the table's first row.
func (v *ProfileView) header() []string {
	h := []string{""}
	for _, lp := range v.kernels {
		h = append(h, lp.Kernel)
	}
	return h
}

// HTML renders the table, the hot instructions and the reading.
func (v *ProfileView) HTML() string {
	if v.err != nil {
		return errorBundle(v.err).Data[MIMEHTML].(string)
	}
	var sb strings.Builder
	sb.WriteString(`<table style="` + tableStyle + `"><caption style="` + captionStyle + `">` + html.EscapeString(v.title()) + `</caption><tr>`)
	for _, h := range v.header() {
		sb.WriteString(`<th style="` + thStyle + `">` + html.EscapeString(h) + `</th>`)
	}
	sb.WriteString(`</tr>`)
	for _, r := range v.rows() {
		sb.WriteString(`<tr><td style="` + tdStyle + `;text-align:left">` + html.EscapeString(r.name) + `</td>`)
		for _, c := range r.cells {
			style := tdStyle
			switch c.mark {
			case good:
				style += goodStyle
			case bad:
				style += badStyle
			}
			sb.WriteString(`<td style="` + style + `">` + html.EscapeString(c.text) + `</td>`)
		}
		sb.WriteString(`</tr>`)
	}
	sb.WriteString(`</table>`)
	if hot := v.hotLines(3); len(hot) > 0 {
		sb.WriteString(`<table style="` + tableStyle + `"><caption style="` + captionStyle + `">The instructions with the most sectors or bank conflicts</caption><tr>`)
		for _, h := range hotHeader {
			sb.WriteString(`<th style="` + thStyle + `">` + h + `</th>`)
		}
		sb.WriteString(`</tr>`)
		for _, h := range hot {
			sb.WriteString(`<tr>`)
			for _, c := range h.cells() {
				sb.WriteString(`<td style="` + tdStyle + `;text-align:left">` + html.EscapeString(c) + `</td>`)
			}
			sb.WriteString(`</tr>`)
		}
		sb.WriteString(`</table>`)
	}
	sb.WriteString(`<ul style="margin:4px 0;padding-left:18px">`)
	for _, r := range v.Reading() {
		sb.WriteString(`<li>` + html.EscapeString(r) + `</li>`)
	}
	sb.WriteString(`</ul>`)
	return sb.String()
}

var hotHeader = []string{"kernel", "where", "instruction", "access", "requests", "per request"}

// Text renders the view as aligned text; highlighted numbers are marked
// with ✓ (good) and ✗ (wasteful).
func (v *ProfileView) Text() string {
	if v.err != nil {
		return "error: " + v.err.Error()
	}
	var rows [][]string
	for _, r := range v.rows() {
		row := []string{r.name}
		for _, c := range r.cells {
			t := c.text
			switch c.mark {
			case good:
				t += " ✓"
			case bad:
				t += " ✗"
			}
			row = append(row, t)
		}
		rows = append(rows, row)
	}
	right := make([]bool, len(v.kernels)+1)
	sb := strings.Builder{}
	sb.WriteString(v.title() + "\n" + alignTable(v.header(), rows, right))
	if hot := v.hotLines(3); len(hot) > 0 {
		var hr [][]string
		for _, h := range hot {
			hr = append(hr, h.cells())
		}
		sb.WriteString("\nThe instructions with the most sectors or bank conflicts\n" + alignTable(hotHeader, hr, make([]bool, len(hotHeader))))
	}
	for _, r := range v.Reading() {
		sb.WriteString("\n- " + r)
	}
	return sb.String()
}

// MIMEBundle returns the view as HTML and text.
func (v *ProfileView) MIMEBundle() (data, metadata map[string]any) {
	if v.err != nil {
		return errorBundle(v.err).MIMEBundle()
	}
	return map[string]any{MIMEHTML: v.HTML(), MIMEText: v.Text()}, nil
}
