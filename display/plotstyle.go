package display

import (
	"image/color"
	"math"
	"strings"
	"sync"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/gpu"
)

// The plot style every Plot gets:
//
//   - A series name has one colour and one marker shape for the whole
//     session (a notebook), in every plot that shows it: the first plot
//     that shows a name gives it its colour, and later plots keep it.
//     The solvers of packages cpu and gpu have colours of their own
//     (preferredColor), so that "fw-hn" looks the same in every notebook.
//   - A document's values for a series (Documented) take the series'
//     colour, dashed, with hollow markers; values measured here (Line)
//     are solid with filled markers; a fitted curve (Fit) is a thin dotted
//     line in the same colour. The legend names each series once and adds
//     a key for each line style the plot uses.
var plotPalette = []color.RGBA{
	{R: 0x00, G: 0x72, B: 0xb2, A: 255}, // blue
	{R: 0xd5, G: 0x5e, B: 0x00, A: 255}, // vermillion
	{R: 0x00, G: 0x9e, B: 0x73, A: 255}, // bluish green
	{R: 0xcc, G: 0x79, B: 0xa7, A: 255}, // reddish purple
	{R: 0xe6, G: 0x9f, B: 0x00, A: 255}, // orange
	{R: 0x56, G: 0xb4, B: 0xe9, A: 255}, // sky blue
	{R: 0x22, G: 0x22, B: 0x22, A: 255}, // near black
	{R: 0x88, G: 0x22, B: 0x55, A: 255}, // wine
	{R: 0x99, G: 0x99, B: 0x33, A: 255}, // olive
	{R: 0x8c, G: 0x56, B: 0x4b, A: 255}, // brown
}

// Palette indices that preferredColor hands out by name.
const (
	blue, vermillion, green, purple, orange, sky, black, wine, olive, brown = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
)

// preferredColors are the colours of the solvers that notebooks plot
// most, the same in every notebook: the CPU references near black, the
// documents' GPU variants and pathnotes' own each in a colour kept for it
// wherever two of them are often plotted together.
var preferredColors = map[string]int{
	cpu.VariantFWNaive: black, cpu.VariantFWAsWritten: black, cpu.VariantDijkstra: black,
	cpu.VariantBF: black, cpu.VariantJohnson: black, cpu.VariantFWBlocked: brown,
	gpu.VariantFWHN: blue, gpu.VariantFWHNShared: sky, gpu.VariantFWRow: olive,
	gpu.VariantFWTiledGlobal: purple, gpu.VariantFWBlocked: vermillion, gpu.VariantFWGaioso: green,
	gpu.VariantFWFast: orange, gpu.VariantDijkstraMartin: blue, gpu.VariantDijkstraAPSP: vermillion,
	gpu.VariantBFNaive: blue, gpu.VariantBFStride: green, gpu.VariantBFFlag: vermillion,
	gpu.VariantAPSPBatched: purple, gpu.VariantBFFast: orange, gpu.VariantJohnsonFast: wine,
	gpu.VariantSSSPFast: orange,
}

// preferredColor returns the colour kept for a solver's name, or for a
// name that starts with one ("fw-hn kernels"); a name that starts with
// "CPU" or "cpu" ("cpu.Dijkstra") is a CPU reference, near black too.
func preferredColor(name string) (int, bool) {
	if c, ok := preferredColors[name]; ok {
		return c, true
	}
	head, _, _ := strings.Cut(name, " ")
	if c, ok := preferredColors[head]; ok {
		return c, true
	}
	if strings.HasPrefix(head, "CPU") || strings.HasPrefix(head, "cpu") {
		return black, true
	}
	return 0, false
}

// seriesColors remembers the colour each series name got, for the
// session: the process a notebook runs in.
var seriesColors = struct {
	sync.Mutex
	byName map[string]int
}{byName: map[string]int{}}

// colorsFor returns the palette index of each name, in order, all
// different while the palette lasts: the name's colour from an earlier
// plot, else its preferred colour, else the first colour no other name
// holds. A name whose colour another name of this plot already took gets
// the first free one here (and keeps its own for other plots).
func colorsFor(names []string) []int {
	seriesColors.Lock()
	defer seriesColors.Unlock()
	held := map[int]bool{} // colours some name holds
	for _, c := range seriesColors.byName {
		held[c] = true
	}
	used := map[int]bool{} // colours of this plot
	free := func(avoidHeld bool) int {
		for c := range plotPalette {
			if !used[c] && !(avoidHeld && held[c]) {
				return c
			}
		}
		return -1
	}
	out := make([]int, len(names))
	for i, name := range names {
		c, known := seriesColors.byName[name]
		if !known {
			if p, ok := preferredColor(name); ok {
				c, known = p, true
			}
		}
		if !known || used[c] {
			if c = free(true); c < 0 {
				if c = free(false); c < 0 {
					c = i % len(plotPalette)
				}
			}
		}
		if _, ok := seriesColors.byName[name]; !ok {
			seriesColors.byName[name] = c
			held[c] = true
		}
		used[c] = true
		out[i] = c
	}
	return out
}

// seriesKind tells how a series was measured, which sets its line style.
type seriesKind int

const (
	measured   seriesKind = iota // Line, Speedup, Bar: solid, filled markers
	documented                   // Documented: dashed, hollow markers
	fitted                       // Fit: thin and dotted, no markers
)

// Line styles of the three kinds.
var (
	documentedDashes = []vg.Length{vg.Points(5), vg.Points(3)}
	fitDashes        = []vg.Length{vg.Points(1.5), vg.Points(2)}
)

// keyColor draws the legend's keys of line styles: grey, no series' colour.
var keyColor = color.RGBA{R: 0x77, G: 0x77, B: 0x77, A: 255}

// seriesLine is the line style of a series of kind k in colour c.
func seriesLine(k seriesKind, c color.Color) draw.LineStyle {
	switch k {
	case documented:
		return draw.LineStyle{Color: c, Width: vg.Points(1.3), Dashes: documentedDashes}
	case fitted:
		return draw.LineStyle{Color: c, Width: vg.Points(1.1), Dashes: fitDashes}
	}
	return draw.LineStyle{Color: c, Width: vg.Points(1.6)}
}

// seriesGlyph is the marker of palette colour i for a series of kind k:
// its shape by colour, filled for values measured here and hollow for a
// document's.
func seriesGlyph(k seriesKind, i int, c color.Color) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(2.8), Shape: markGlyph{sides: paletteSides[i%len(paletteSides)], hollow: k == documented}}
}

// paletteSides is the marker shape of each palette colour: a circle (0),
// a square (4) or a triangle (3), chosen so that the solvers most often
// plotted together differ in shape as well as colour.
var paletteSides = []int{0, 4, 3, 4, 3, 3, 4, 0, 4, 3}

// markGlyph is a circle (sides 0), square (4) or triangle (3), filled or
// outlined with a line thick enough to read beside the filled ones
// (gonum's outlines are half a point wide).
type markGlyph struct {
	sides  int
	hollow bool
}

// DrawGlyph implements draw.GlyphDrawer.
func (g markGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	var p vg.Path
	switch g.sides {
	case 0:
		p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
		p.Arc(pt, r, 0, 2*math.Pi)
	case 4:
		s := r * 0.85
		p.Move(vg.Point{X: pt.X - s, Y: pt.Y - s})
		p.Line(vg.Point{X: pt.X + s, Y: pt.Y - s})
		p.Line(vg.Point{X: pt.X + s, Y: pt.Y + s})
		p.Line(vg.Point{X: pt.X - s, Y: pt.Y + s})
	default:
		r *= 1.15
		p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
		p.Line(vg.Point{X: pt.X - r*0.87, Y: pt.Y - r*0.5})
		p.Line(vg.Point{X: pt.X + r*0.87, Y: pt.Y - r*0.5})
	}
	p.Close()
	if g.hollow {
		c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.1)})
		c.Stroke(p)
		return
	}
	c.SetColor(sty.Color)
	c.Fill(p)
}
