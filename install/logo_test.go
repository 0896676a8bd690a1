package install

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the kernelspec logos from Logo")

// TestLogoFiles checks that the committed logos are what Logo draws (pixel
// for pixel, so that another PNG encoder does not matter); -update rewrites
// them.
func TestLogoFiles(t *testing.T) {
	for _, size := range []int{32, 64} {
		name := "kernelspec/logo-" + itoa(size) + "x" + itoa(size) + ".png"
		want := Logo(size)
		if *update {
			var buf bytes.Buffer
			if err := png.Encode(&buf, want); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Bounds() != image.Rect(0, 0, size, size) {
			t.Fatalf("%s is %v", name, got.Bounds())
		}
		for y := 0; y < size; y++ {
			for x := 0; x < size; x++ {
				if r1, g1, b1, a1 := got.At(x, y).RGBA(); [4]uint32{r1, g1, b1, a1} != rgba(want.At(x, y).RGBA()) {
					t.Fatalf("%s differs from Logo(%d) at (%d,%d): run go generate ./install", name, size, x, y)
				}
			}
		}
	}
}

func rgba(r, g, b, a uint32) [4]uint32 { return [4]uint32{r, g, b, a} }

func itoa(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }

func TestLogoLooksLikeTheDesign(t *testing.T) {
	img := Logo(64)
	// Corners are transparent (rounded tile), the centre of the tile's edge
	// is Go blue, the source vertex is dark, the path between vertices 1
	// and 2 is yellow.
	at := func(x, y float64) [4]uint8 {
		c := img.NRGBAAt(int(x*64), int(y*64))
		return [4]uint8{c.R, c.G, c.B, c.A}
	}
	if c := at(0.01, 0.01); c[3] != 0 {
		t.Errorf("corner %v is not transparent", c)
	}
	if c := at(0.5, 0.93); c != [4]uint8{0x00, 0xAD, 0xD8, 0xFF} {
		t.Errorf("tile %v is not Go blue", c)
	}
	if c := at(0.22, 0.30); c != [4]uint8{0x1E, 0x2A, 0x38, 0xFF} {
		t.Errorf("source vertex %v", c)
	}
	if c := at(0.65, 0.28); c != [4]uint8{0xFD, 0xDD, 0x00, 0xFF} {
		t.Errorf("path %v is not yellow", c)
	}
}
