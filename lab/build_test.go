package lab

import (
	"regexp"
	"runtime/debug"
	"testing"
)

func TestBuildText(t *testing.T) {
	rev := "8a0c8e0d1f2a3b4c5d6e7f8091a2b3c4d5e6f708"
	for _, c := range []struct {
		version, linked string
		settings        []debug.BuildSetting
		want            string
	}{
		{"", "", nil, "pathnotes (devel), commit unknown"},
		{"(devel)", "", []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "false"}},
			"pathnotes (devel) 8a0c8e0d1f2a"},
		{"v1.2.0", "", []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: rev}},
			"pathnotes v1.2.0 8a0c8e0d1f2a+modified"},
		{"(devel)", "", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}, "pathnotes (devel), commit unknown"},
		// A commit given at link time counts where go build stamped none.
		{"(devel)", "0123456789ab", nil, "pathnotes (devel) 0123456789ab"},
		{"(devel)", "0123456789ab", []debug.BuildSetting{{Key: "vcs.revision", Value: rev}}, "pathnotes (devel) 8a0c8e0d1f2a"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Version: c.version}, Settings: c.settings}
		if got := buildText(bi, c.linked); got != c.want {
			t.Errorf("version %q, linked %q, settings %v: %q, want %q", c.version, c.linked, c.settings, got, c.want)
		}
	}
}

// TestBuild checks the form of what this test binary reports: no commit, or
// a 12-digit one.
func TestBuild(t *testing.T) {
	if got := Build(); !regexp.MustCompile(`^pathnotes \S+( [0-9a-f]{12}(\+modified)?|, commit unknown)$`).MatchString(got) {
		t.Errorf("Build() = %q", got)
	}
}
