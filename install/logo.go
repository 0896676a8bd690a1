package install

import (
	"image"
	"image/color"
	"math"
)

// The logo is a small weighted graph on a Go-blue tile, with a shortest
// path drawn in yellow: what the kernel is for. It is drawn in code so that
// it can be checked and redrawn at any size (`go generate ./install`
// rewrites the PNG files of the kernelspec from it).

//go:generate go test -run TestLogoFiles -update .

// Colours of the logo.
var (
	goBlue  = color.NRGBA{0x00, 0xAD, 0xD8, 0xFF}
	edge    = color.NRGBA{0xFF, 0xFF, 0xFF, 0x90}
	path    = color.NRGBA{0xFD, 0xDD, 0x00, 0xFF}
	node    = color.NRGBA{0xFF, 0xFF, 0xFF, 0xFF}
	endNode = color.NRGBA{0x1E, 0x2A, 0x38, 0xFF}
)

// Vertices of the drawn graph, in units of the tile's side.
var logoVertices = [][2]float64{
	{0.22, 0.30}, {0.50, 0.20}, {0.80, 0.36}, {0.34, 0.74}, {0.74, 0.78},
}

// logoEdges are the graph's edges; logoPath, the shortest path 0→4 shown.
var (
	logoEdges = [][2]int{{0, 1}, {1, 2}, {0, 3}, {3, 4}, {1, 3}, {2, 4}}
	logoPath  = [][2]int{{0, 1}, {1, 2}, {2, 4}}
)

// shape is one layer of the drawing: a test for points inside it, in tile
// units, and its colour.
type shape struct {
	inside func(x, y float64) bool
	c      color.NRGBA
}

// logoShapes lists the layers, bottom first.
func logoShapes() []shape {
	shapes := []shape{{func(x, y float64) bool { return inRoundedSquare(x, y, 0.04, 0.2) }, goBlue}}
	for _, e := range logoEdges {
		shapes = append(shapes, segmentShape(e, 0.035, edge))
	}
	for _, e := range logoPath {
		shapes = append(shapes, segmentShape(e, 0.085, path))
	}
	for i, v := range logoVertices {
		c, r := node, 0.085
		if i == 0 || i == len(logoVertices)-1 {
			c, r = endNode, 0.095
		}
		shapes = append(shapes, shape{func(x, y float64) bool { return math.Hypot(x-v[0], y-v[1]) <= r }, c})
	}
	return shapes
}

func segmentShape(e [2]int, width float64, c color.NRGBA) shape {
	a, b := logoVertices[e[0]], logoVertices[e[1]]
	return shape{func(x, y float64) bool { return segmentDistance(x, y, a, b) <= width/2 }, c}
}

// inRoundedSquare reports whether (x, y) lies in the unit square inset by
// margin, with corners of radius r.
func inRoundedSquare(x, y, margin, r float64) bool {
	lo, hi := margin+r, 1-margin-r
	dx := math.Max(0, math.Max(lo-x, x-hi))
	dy := math.Max(0, math.Max(lo-y, y-hi))
	return math.Hypot(dx, dy) <= r
}

// segmentDistance is the distance from (x, y) to the segment ab.
func segmentDistance(x, y float64, a, b [2]float64) float64 {
	dx, dy := b[0]-a[0], b[1]-a[1]
	t := ((x-a[0])*dx + (y-a[1])*dy) / (dx*dx + dy*dy)
	t = math.Max(0, math.Min(1, t))
	return math.Hypot(x-a[0]-t*dx, y-a[1]-t*dy)
}

// Logo draws the logo as a size×size image, antialiased by averaging 4×4
// samples per pixel.
func Logo(size int) *image.NRGBA {
	const ss = 4
	shapes := logoShapes()
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var acc [4]float64 // premultiplied r, g, b and alpha
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/ss) / float64(size)
					y := (float64(py) + (float64(sy)+0.5)/ss) / float64(size)
					var p [4]float64
					for _, s := range shapes {
						if s.inside(x, y) {
							a := float64(s.c.A) / 255
							p[0] = float64(s.c.R)*a + p[0]*(1-a)
							p[1] = float64(s.c.G)*a + p[1]*(1-a)
							p[2] = float64(s.c.B)*a + p[2]*(1-a)
							p[3] = a + p[3]*(1-a)
						}
					}
					for i := range acc {
						acc[i] += p[i]
					}
				}
			}
			a := acc[3] / (ss * ss)
			if a == 0 {
				continue
			}
			unmul := func(v float64) uint8 { return uint8(math.Round(math.Min(255, v/(ss*ss)/a))) }
			img.SetNRGBA(px, py, color.NRGBA{unmul(acc[0]), unmul(acc[1]), unmul(acc[2]), uint8(math.Round(a * 255))})
		}
	}
	return img
}
