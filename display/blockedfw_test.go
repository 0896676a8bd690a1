package display

import (
	"strings"
	"testing"
)

// tilesByClass counts the schematic's tiles by phase class, and the tiles
// with each extra class (reads, idle).
func tilesByClass(t *testing.T, svg string) (phases map[string]int, extra map[string]int, fills map[string]string) {
	t.Helper()
	phases, extra, fills = map[string]int{}, map[string]int{}, map[string]string{}
	for _, e := range parseXML(t, svg, false) {
		cls := strings.Fields(e.attrs["class"])
		if e.name != "rect" || len(cls) < 2 || cls[0] != "tile" {
			continue
		}
		phases[cls[1]]++
		for _, c := range cls[2:] {
			extra[c]++
		}
		if len(cls) == 2 {
			if f, ok := fills[cls[1]]; ok && f != e.attrs["fill"] {
				t.Errorf("%s tiles filled %s and %s", cls[1], f, e.attrs["fill"])
			}
			fills[cls[1]] = e.attrs["fill"]
		}
	}
	return phases, extra, fills
}

func TestBlockedFWTiles(t *testing.T) {
	// n = 10 with b = 4: 3×3 tiles, the last row and column short.
	data := bundle(t, BlockedFW(10, 4, 1))
	svg := str(t, data, MIMESVG)
	wantSVGImage(t, data)
	phases, extra, fills := tilesByClass(t, svg)
	if phases["phase1"] != 1 || phases["phase2"] != 4 || phases["phase3"] != 4 || len(extra) != 0 {
		t.Errorf("tiles by phase %v, extra classes %v; want 1, 4 and 4, none extra", phases, extra)
	}
	if fills["phase1"] == fills["phase2"] || fills["phase2"] == fills["phase3"] || fills["phase1"] == fills["phase3"] {
		t.Errorf("phases share a colour: %v", fills)
	}
	els := parseXML(t, svg, false)
	var labels []string
	for _, e := range els {
		if e.name == "text" && e.attrs["class"] == "tile-label" {
			labels = append(labels, e.text)
		}
		if e.name == "rect" && e.attrs["data-tile"] == "1,1" && !strings.Contains(e.attrs["class"], "phase1") {
			t.Errorf("tile (1,1) has class %q, want the pivot's", e.attrs["class"])
		}
		if e.name == "rect" && e.attrs["data-tile"] == "2,2" && (e.attrs["width"] != e.attrs["height"] || e.attrs["width"] == "") {
			t.Errorf("corner tile %v×%v, want square", e.attrs["width"], e.attrs["height"])
		}
	}
	if strings.Join(labels, " ") != "0 0 1 1 2 2" {
		t.Errorf("tile labels %q, want 0, 1 and 2 at the top and left", labels)
	}
	wantContains(t, "text", str(t, data, MIMEText),
		"n = 10, 3×3 tiles of 4, round k = 1, all phases",
		"phase 1 (pivot tile): (1,1)",
		"phase 2 (pivot row and column): (0,1) (1,0) (1,2) (2,1)",
		"phase 3 (the rest): (0,0) (0,2) (2,0) (2,2)")
	for _, want := range []string{"phase 1: pivot tile (1,1)", "phase 2: pivot row 1 and column 1", "phase 3: the rest"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG legend lacks %q", want)
		}
	}
}

func TestBlockedFWPhase(t *testing.T) {
	for _, tt := range []struct {
		phase               int
		shown, reads, idles int
	}{
		{1, 1, 0, 15}, // the pivot tile alone
		{2, 6, 1, 9},  // row and column, reading the pivot
		{3, 9, 6, 1},  // the rest, reading row and column
	} {
		v := BlockedFW(16, 4, 0).Phase(tt.phase)
		svg, err := v.SVG()
		if err != nil {
			t.Fatal(err)
		}
		phases, extra, _ := tilesByClass(t, svg)
		if total := phases["phase1"] + phases["phase2"] + phases["phase3"]; total != 16 {
			t.Errorf("phase %d: %d tiles, want 16", tt.phase, total)
		}
		shown := phases["phase"+string(rune('0'+tt.phase))]
		if shown != tt.shown || extra["reads"] != tt.reads || extra["idle"] != tt.idles {
			t.Errorf("phase %d: %d shown, %d read, %d idle; want %d, %d, %d", tt.phase, shown, extra["reads"], extra["idle"], tt.shown, tt.reads, tt.idles)
		}
		if text := v.Text(); strings.Count(text, "\nphase ") != 1 {
			t.Errorf("phase %d: text lists other phases:\n%s", tt.phase, text)
		}
	}
}

func TestBlockedFWLaunch(t *testing.T) {
	// 2×3 blocks of 6×3 threads over 10×10 cells: columns 0-9 and rows 0-8
	// covered (row 9 not), 108 threads for 90 cells.
	v := BlockedFW(10, 4, 0).Launch(2, 3, 6, 3)
	svg, err := v.SVG()
	if err != nil {
		t.Fatal(err)
	}
	blocks, uncovered := 0, []string{}
	for _, e := range parseXML(t, svg, false) {
		switch e.attrs["class"] {
		case "block":
			blocks++
		case "uncovered":
			uncovered = append(uncovered, e.attrs["width"]+"×"+e.attrs["height"])
		}
	}
	// Cells are 28 px: the strip under row 8 is 10 cells by 1.
	if blocks != 6 || strings.Join(uncovered, " ") != "280×28" {
		t.Errorf("%d blocks, uncovered strips %q; want 6 and 280×28", blocks, uncovered)
	}
	wantContains(t, "text", v.Text(), "launch 2×3 blocks of 6×3 threads: 90 of 100 cells covered, 18 threads outside")
}

func TestBlockedFWErrors(t *testing.T) {
	for _, tt := range []struct {
		v    *BlockedFWView
		want string
	}{
		{BlockedFW(0, 4, 0), "n = 0"},
		{BlockedFW(1000, 32, 0), "n = 1000, want 1 to 360"},
		{BlockedFW(8, 0, 0), "tile size b = 0"},
		{BlockedFW(8, 4, 2), "round k = 2, want 0 to 1"},
		{BlockedFW(8, 4, 0).Phase(4), "phase 4"},
		{BlockedFW(8, 4, 0).Launch(1, 0, 32, 32), "launch grid 1×0"},
		{BlockedFW(12, 4, 0).Shared(1, 1), "needs one phase"},
		{BlockedFW(12, 4, 0).Phase(3).Shared(0, 1), "phase 3 does not update that tile (phase 2 does)"},
		{BlockedFW(12, 4, 0).Phase(3).Shared(3, 1), "no such tile"},
		{BlockedFW(12, 4, 0).Blocks(), "Blocks needs one phase"},
		{BlockedFW(12, 4, 0).Persistent(0), "Persistent(0)"},
		{BlockedFW(12, 4, 0).Phase(2).Persistent(3), "leave Phase out"},
	} {
		if err := tt.v.Err(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
		if text := str(t, bundle(t, tt.v), MIMEText); !strings.Contains(text, tt.want) {
			t.Errorf("bundle text %q, want the error", text)
		}
	}
}

// Shared outlines the tiles a block keeps in shared memory, as [Karaula
// 2017] §4.5 lists them, and fills a slot for each in the tile's colour.
func TestBlockedFWShared(t *testing.T) {
	for _, tt := range []struct {
		v     *BlockedFWView
		slots string
	}{
		{BlockedFW(160, 32, 1).Phase(1).Shared(1, 1), "(1,1) the pivot tile"},
		{BlockedFW(160, 32, 1).Phase(2).Shared(3, 1), "(1,1) the pivot tile, (3,1) its own tile"},
		{BlockedFW(160, 32, 1).Phase(3).Shared(3, 2), "(3,2) its own tile, (3,1) from the pivot column, (1,2) from the pivot row"},
	} {
		svg, err := tt.v.SVG()
		if err != nil {
			t.Fatal(err)
		}
		outlined, slots := 0, 0
		for _, e := range parseXML(t, svg, false) {
			switch e.attrs["class"] {
			case "shared-tile":
				outlined++
			case "slot":
				slots++
			}
		}
		if want := strings.Count(tt.slots, "("); outlined != want || slots != want {
			t.Errorf("%d tiles outlined and %d slots, want %d", outlined, slots, want)
		}
		wantContains(t, "text", tt.v.Text(), "shared memory of the block on ", tt.slots)
	}
}

// Blocks numbers the tiles as Karaula's grids take them, skipping the
// pivot's row and column; Persistent deals the pivot row's tiles, then the
// column's, to the blocks in turn.
func TestBlockedFWBlocksAndPersistent(t *testing.T) {
	wantContains(t, "phase 2", BlockedFW(160, 32, 1).Phase(2).Blocks().Text(),
		"(0,1) block (0,1)", "(1,0) block (0,0)", "(1,2) block (1,0)", "(4,1) block (3,1)")
	wantContains(t, "phase 3", BlockedFW(160, 32, 1).Phase(3).Blocks().Text(),
		"(0,0) block (0,0)", "(0,2) block (1,0)", "(2,0) block (0,1)", "(4,4) block (3,3)")
	wantContains(t, "persistent", BlockedFW(160, 32, 1).Persistent(3).Text(),
		"(1,0) task 0 block 0", "(1,2) task 1 block 1", "(1,4) task 3 block 0", "(0,1) task 4 block 1", "(4,1) task 7 block 1")
}
