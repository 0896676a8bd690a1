package display

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"
	"strings"

	"github.com/pathnotes/pathnotes/graph"
)

// heatmapSide is the side of a heatmap in pixels, whatever the matrix
// size: a small matrix gets blocks of pixels per cell (their sides differ by
// at most one pixel), a large one a pixel per block of cells.
const heatmapSide = 384

// heatmapPercentile is the share of finite values below the top of the
// colour scale. Distances of random graphs have a long upper tail; scaling
// to the maximum would leave nearly every cell dark.
const heatmapPercentile = 0.99

// heatmapSamples bounds how many cells are sorted to find the percentile.
const heatmapSamples = 100000

// viridis holds evenly spaced stops of the viridis colour map (dark blue
// for small values to yellow for large ones), which stays readable in grey
// and for colour-blind readers.
var viridis = []color.RGBA{
	{0x44, 0x01, 0x54, 0xff}, {0x48, 0x28, 0x78, 0xff}, {0x3e, 0x49, 0x89, 0xff},
	{0x31, 0x68, 0x8e, 0xff}, {0x26, 0x82, 0x8e, 0xff}, {0x1f, 0x9e, 0x89, 0xff},
	{0x35, 0xb7, 0x79, 0xff}, {0x6e, 0xce, 0x58, 0xff}, {0xb5, 0xde, 0x2b, 0xff},
	{0xfd, 0xe7, 0x25, 0xff},
}

// unreachableColor marks ∞ (or NIL) cells: a light grey that is no colour
// of the scale.
var unreachableColor = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}

// scaleColor maps t in [0,1] onto the viridis scale.
func scaleColor(t float64) color.RGBA {
	t = min(max(t, 0), 1)
	x := t * float64(len(viridis)-1)
	i := min(int(x), len(viridis)-2)
	f := x - float64(i)
	a, b := viridis[i], viridis[i+1]
	mix := func(p, q uint8) uint8 { return uint8(float64(p) + f*(float64(q)-float64(p)) + 0.5) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}

// sentinel is the value that means "none" for the matrix's kind.
func (m *Matrix) sentinel() int32 {
	if m.kind == PredecessorCells {
		return graph.Nil
	}
	return graph.Inf
}

// valueRange returns the smallest and largest cell that is not the
// sentinel, and false when every cell is.
func (m *Matrix) valueRange() (lo, hi int32, ok bool) {
	s := m.sentinel()
	for _, v := range m.cells {
		if v == s {
			continue
		}
		if !ok {
			lo, hi, ok = v, v, true
			continue
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, ok
}

// colourRange returns the values at the two ends of the colour scale: the
// smallest value and the heatmapPercentile-th, found in an evenly strided
// sample of at most heatmapSamples cells. Predecessor numbers have no tail
// to cut: their scale runs to the largest.
func (m *Matrix) colourRange() (lo, hi int32) {
	lo, top, ok := m.valueRange()
	if !ok || m.kind == PredecessorCells {
		return lo, top
	}
	s := m.sentinel()
	stride := max(1, len(m.cells)/heatmapSamples)
	var sample []int32
	for i := 0; i < len(m.cells); i += stride {
		if m.cells[i] != s {
			sample = append(sample, m.cells[i])
		}
	}
	if len(sample) == 0 { // the stride missed the few finite cells
		return lo, top
	}
	slices.Sort(sample)
	// Rounding the rank up keeps the maximum of small matrices.
	return lo, sample[int(math.Ceil(heatmapPercentile*float64(len(sample)-1)))]
}

// blockValue summarises the cells [r0,r1)×[c0,c1) for one heatmap pixel:
// the mean of the finite distances, or for predecessors the first one that
// is not NIL (a mean of vertex numbers means nothing). ok is false when
// every cell is the sentinel.
func (m *Matrix) blockValue(r0, r1, c0, c1 int) (v float64, ok bool) {
	s := m.sentinel()
	sum, count := 0.0, 0
	for i := r0; i < r1; i++ {
		for _, x := range m.cells[i*m.n+c0 : i*m.n+c1] {
			if x == s {
				continue
			}
			if m.kind == PredecessorCells {
				return float64(x), true
			}
			sum += float64(x)
			count++
		}
	}
	if count == 0 {
		return 0, false
	}
	return sum / float64(count), true
}

// HeatmapPNG draws the whole matrix as a 384×384 PNG: one colour per value
// on the viridis scale from the smallest (dark blue) to the 99th percentile
// (yellow, as is everything above it), ∞ or NIL in light grey. A matrix
// with more than 384 rows is averaged down (see Heatmap's legend).
func (m *Matrix) HeatmapPNG() ([]byte, error) {
	if err := m.Err(); err != nil {
		return nil, err
	}
	if m.n == 0 {
		return nil, fmt.Errorf("display: heatmap of the empty matrix %q", m.title)
	}
	lo, hi := m.colourRange()
	side := heatmapSide
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	for py := 0; py < side; py++ {
		r0, r1 := py*m.n/side, (py+1)*m.n/side
		r1 = max(r1, r0+1)
		for px := 0; px < side; px++ {
			c0, c1 := px*m.n/side, (px+1)*m.n/side
			c1 = max(c1, c0+1)
			v, ok := m.blockValue(r0, r1, c0, c1)
			c := unreachableColor
			if ok {
				t := 0.0
				if hi > lo {
					t = (v - float64(lo)) / float64(hi-lo)
				}
				c = scaleColor(t)
			}
			img.SetRGBA(px, py, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("display: encoding the heatmap of %q: %w", m.title, err)
	}
	return buf.Bytes(), nil
}

// Heatmap shows HeatmapPNG with the colour legend as its text.
func (m *Matrix) Heatmap() Bundle {
	b, err := m.HeatmapPNG()
	if err != nil {
		return errorBundle(err)
	}
	bundle := PNG(b)
	bundle.Data[MIMEText] = bundle.Data[MIMEText].(string) + "\n" + m.heatmapLegend()
	return bundle
}

// heatmapLegend explains the heatmap's colours in words.
func (m *Matrix) heatmapLegend() string {
	what, none := "distance", "unreachable (∞)"
	if m.kind == PredecessorCells {
		what, none = "predecessor vertex number", "NIL"
	}
	var sb strings.Builder
	if m.title != "" {
		sb.WriteString("heatmap of " + m.title + ": ")
	} else {
		sb.WriteString("heatmap: ")
	}
	if _, top, ok := m.valueRange(); ok {
		lo, hi := m.colourRange()
		fmt.Fprintf(&sb, "%s %d (dark blue) to %d (yellow", what, lo, hi)
		if hi < top {
			fmt.Fprintf(&sb, "; larger values up to %d too", top)
		}
		sb.WriteString("), ")
	}
	sb.WriteString("light grey = " + none)
	if m.n > heatmapSide {
		agg := "mean of finite distances"
		if m.kind == PredecessorCells {
			agg = "first non-NIL predecessor"
		}
		cells := float64(m.n) / heatmapSide
		fmt.Fprintf(&sb, "; each pixel about %.3g×%.3g cells (%s)", cells, cells, agg)
	}
	return sb.String()
}

// heatmapLegendHTML draws the colour scale as a gradient bar with its end
// values, under the heatmap image.
func (m *Matrix) heatmapLegendHTML() string {
	stops := make([]string, len(viridis))
	for i, c := range viridis {
		stops[i] = fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
	}
	_, top, ok := m.valueRange()
	lo, hi := m.colourRange()
	ends := ""
	if ok {
		more := ""
		if hi < top {
			more = fmt.Sprintf(" and above (to %d)", top)
		}
		ends = fmt.Sprintf(`<span>%d</span><span style="display:inline-block;width:160px;height:10px;margin:0 6px;vertical-align:middle;background:linear-gradient(to right,%s)"></span><span>%d%s</span>`,
			lo, strings.Join(stops, ","), hi, more)
	}
	none := "∞"
	if m.kind == PredecessorCells {
		none = "NIL"
	}
	return `<div style="` + noteStyle + `;margin:2px 0 6px 0">` + ends +
		`<span style="display:inline-block;width:10px;height:10px;margin:0 4px 0 12px;background:#dddddd;border:1px solid #bbb"></span>` + none + `</div>`
}
