package lab

import "runtime/debug"

// linkedCommit is the commit a build names when the Go toolchain stamped
// none: go build stamps the git commit only when the module's folder holds a
// .git directory, not in a git worktree (whose .git is a file) or a copy of
// the tree. Set it at link time:
//
//	go build -ldflags "-X github.com/pathnotes/pathnotes/lab.linkedCommit=$(git rev-parse --short=12 HEAD)"
var linkedCommit string

// Build names the pathnotes build that runs this process, for the first
// cell of a notebook (which commit its outputs come from) and for
// `pathnotes version`: "pathnotes", the module version, and the git commit
// it was built from — 12 hex digits and "+modified" when the checkout had
// uncommitted changes, as go build stamps it, else the commit given at link
// time (linkedCommit) — or "commit unknown" when the binary carries neither
// (a test binary, a build with -buildvcs=false or outside a git checkout).
func Build() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = &debug.BuildInfo{}
	}
	return buildText(bi, linkedCommit)
}

// buildText is Build for the given build information and link-time commit.
func buildText(bi *debug.BuildInfo, linked string) string {
	v := "(devel)"
	if bi.Main.Version != "" {
		v = bi.Main.Version
	}
	rev, modified := linked, ""
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			rev = s.Value[:12]
		case s.Key == "vcs.modified" && s.Value == "true":
			modified = "+modified"
		}
	}
	if rev == "" {
		return "pathnotes " + v + ", commit unknown"
	}
	return "pathnotes " + v + " " + rev + modified
}
