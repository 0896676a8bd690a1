package kernel

import (
	"testing"
	"time"
)

// TestCellAfterErrorReplyRuns sends a cell as soon as the error reply of the
// one before arrives, as a front end running a notebook's cells one by one
// does. stop_on_error aborts only the requests queued before that reply, so
// the new cell must run, every time.
func TestCellAfterErrorReplyRuns(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	const tries = 400
	deadline := time.Now().Add(2 * time.Second)
	n := 0
	for ; n < tries && time.Now().Before(deadline); n++ {
		failing := c.send(c.shell, "execute_request", executeContent("panic(\"stop\")", nil))
		if r := content(t, c.reply(c.shellMsgs, failing)); r["status"] != "error" {
			t.Fatalf("try %d: failing cell: %v", n, r)
		}
		next := c.send(c.shell, "execute_request", executeContent("1", nil))
		if r := content(t, c.reply(c.shellMsgs, next)); r["status"] != "ok" {
			t.Fatalf("try %d: the cell sent after the error reply: %v, want ok", n, r)
		}
		if n%50 == 0 {
			c.drainIOPub()
		}
	}
	if n < 20 {
		t.Fatalf("only %d tries in the time allowed", n)
	}
	t.Logf("%d tries", n)
}
