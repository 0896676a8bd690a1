package kernel

import (
	"testing"
)

// TestTortureClosedStdStreams closes os.Stdout and os.Stderr in cells: the
// next cells' output still reaches the client on both streams.
func TestTortureClosedStdStreams(t *testing.T) {
	_, c := startTorture(t)
	for _, name := range []string{"Stdout", "Stderr"} {
		if reply, _ := c.execute("import \"os\"\nos."+name+".Close()", nil); content(t, reply)["status"] != "ok" {
			t.Fatalf("closing os.%s: %v", name, content(t, reply))
		}
		reply, outs := c.execute("fmt.Println(\"out\")\nfmt.Fprintln(os.Stderr, \"err\")", nil)
		if r := content(t, reply); r["status"] != "ok" {
			t.Fatalf("printing after closing os.%s: %v", name, r)
		}
		if got := streamText(t, outs, "stdout"); got != "out\n" {
			t.Errorf("after a cell closed os.%s, stdout = %q, want %q", name, got, "out\n")
		}
		if got := streamText(t, outs, "stderr"); got != "err\n" {
			t.Errorf("after a cell closed os.%s, stderr = %q, want %q", name, got, "err\n")
		}
		assertAlive(t, c, "closing os."+name)
	}
}
