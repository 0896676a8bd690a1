package display

import (
	"regexp"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/gpu"
)

// profileFixture returns three launches: two of a kernel whose load of
// column k is strided (32 sectors for 128 bytes per request) and
// diverges, one of a tiled kernel with a 32-way bank conflict, and one
// from a card, without counts.
func profileFixture() []*gpu.LaunchProfile {
	strided := gpu.LineCounts{Line: 57, Text: "ld.global.u32 %r5, [%rd7]", File: "/tmp/cell", SourceLine: 14, Access: gpu.AccessLoad,
		Global: gpu.MemCounts{Requests: 100, Bytes: 12800, Sectors: 3200}}
	row := gpu.LineCounts{Line: 60, Text: "ld.global.u32 %r6, [%rd9]", Access: gpu.AccessLoad,
		Global: gpu.MemCounts{Requests: 100, Bytes: 12800, Sectors: 400}}
	naive := func() *gpu.LaunchProfile {
		p := &gpu.ProfileCounts{Kernel: "naive", Launches: 1, Warps: 100, Instructions: 2000, ThreadInstructions: 56000, Branches: 200, Divergent: 50,
			Lines: []gpu.LineCounts{strided, row}}
		p.Global[gpu.AccessLoad] = gpu.MemCounts{Requests: 200, Bytes: 25600, Sectors: 3600}
		return &gpu.LaunchProfile{Kernel: "naive", Device: "emu", Emulated: true, Grid: gpu.Dim(100), Block: gpu.Dim(32), Launches: 1, Counts: p,
			Occupancy: gpu.Occupancy{BlocksPerSM: 32, WarpsPerSM: 32, MaxWarpsPerSM: 64, Limiter: "block slots"}}
	}
	conflict := gpu.LineCounts{Line: 80, Text: "ld.shared.u32 %r9, [%r4]", Access: gpu.AccessLoad,
		Shared: gpu.MemCounts{Requests: 10, Bytes: 1280, Wavefronts: 320, Conflicts: 310}}
	tp := &gpu.ProfileCounts{Kernel: "tiled", Launches: 1, Warps: 10, Instructions: 100, ThreadInstructions: 3200, Lines: []gpu.LineCounts{conflict}}
	tp.Shared[gpu.AccessLoad] = conflict.Shared
	tiled := &gpu.LaunchProfile{Kernel: "tiled", Device: "emu", Emulated: true, Grid: gpu.Dim(1), Block: gpu.Dim(32, 32), Launches: 1, Counts: tp,
		SharedBytes: 4096, Occupancy: gpu.Occupancy{BlocksPerSM: 2, WarpsPerSM: 64, MaxWarpsPerSM: 64, Limiter: "threads"}}
	card := &gpu.LaunchProfile{Kernel: "onCard", Device: "H100", Grid: gpu.Dim(1), Block: gpu.Dim(256), Launches: 1, Registers: 40,
		Occupancy: gpu.Occupancy{BlocksPerSM: 6, WarpsPerSM: 48, MaxWarpsPerSM: 64, Limiter: "registers"}}
	return []*gpu.LaunchProfile{naive(), naive(), tiled, card}
}

func TestProfileView(t *testing.T) {
	v := Profile(profileFixture()...)
	if v.Err() != nil {
		t.Fatal(v.Err())
	}
	text := v.Text()
	for _, want := range []string{
		"naive", "tiled", "onCard", // one column each, naive's two launches summed
		"Kernel profile\n", "H100", // two devices: a row of devices, not a caption
		"18.0 ✗",                       // sectors per request of naive's loads: 7200 / 400
		"50.0 KiB / 225.0 KiB (22%) ✗", // asked against moved
		"310 (31.00 per request) ✗",    // the conflicts
		"cell line 14 (PTX line 57)",   // the hot line, with its .loc
		"at cell line 14 (PTX line 57: ld.global.u32 %r5, [%rd7]) touches",     // the reading names it
		"touches 32.0 sectors (1024 bytes) for 128 bytes asked: not coalesced", // the reading
		"takes 32.0 wavefronts instead of 1",
		"100 of 400 branches diverge", "28.0 of 32 threads",
		"registers unknown in PTX", "limited by registers", "need Nsight Compute",
		"unknown (PTX)", "40",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	if !regexp.MustCompile(`(?m)^launches +2 +1 +1$`).MatchString(text) || strings.Contains(text, "stores") {
		t.Errorf("naive's two launches should show as one column with 2 launches, and no row of stores, which no kernel made:\n%s", text)
	}
	h := v.HTML()
	if strings.Count(h, badStyle) < 4 || !strings.Contains(h, goodStyle) || !strings.Contains(h, "<li>") {
		t.Errorf("the HTML highlights %d numbers as bad, want at least 4, and some as good:\n%s", strings.Count(h, badStyle), h)
	}
	data, _ := v.MIMEBundle()
	if data[MIMEText] != text || data[MIMEHTML] != h {
		t.Error("the bundle is not the view's text and HTML")
	}
	if one := Profile(profileFixture()[:3]...).Text(); !strings.HasPrefix(one, "Kernel profile on emu\n") || strings.Contains(one, "device ") {
		t.Errorf("one device: it belongs in the caption:\n%s", one)
	}
	if Profile().Err() == nil {
		t.Error("a profile of no launches shows no error")
	}
}
