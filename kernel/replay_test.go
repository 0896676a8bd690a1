package kernel

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestReplayedMessageIsDropped sends one signed execute_request three times,
// the second time with its signature in upper-case hex (which verifies as
// well): the cell must run once.
func TestReplayedMessageIsDropped(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	c.value("n := 0\nn")
	frames, err := c.signer.Encode(nil, NewHeader("execute_request", c.session), nil, nil, executeContent("n++", nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	upper := append([][]byte(nil), frames...)
	upper[1] = bytes.ToUpper(frames[1])
	c.sendFrames(c.shell, frames...)
	c.sendFrames(c.shell, upper...)
	c.sendFrames(c.shell, frames...)
	// Shell requests are served in order: by the time n is read, the
	// copies have been served or dropped.
	if v := c.value("n"); v != "1" {
		t.Errorf("n = %s after one execute_request sent three times, want 1", v)
	}
	if got := strings.Count(tk.logs.String(), "replayed message dropped"); got != 2 {
		t.Errorf("%d replays logged, want 2", got)
	}
	// A replay on another channel is caught too.
	info, err := c.signer.Encode(nil, NewHeader("kernel_info_request", c.session), nil, nil, map[string]any{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	infoID := msgIDOf(t, c, info)
	c.sendFrames(c.control, info...)
	if r := content(t, c.reply(c.controlMsgs, infoID)); r["status"] != "ok" {
		t.Fatalf("kernel_info_reply %v", r)
	}
	c.sendFrames(c.shell, info...)
	after := c.send(c.shell, "kernel_info_request", map[string]any{})
	timeout := time.After(waitFor)
	for done := false; !done; {
		select {
		case m := <-c.shellMsgs:
			if id := parentID(m); id == infoID {
				t.Fatal("the kernel_info_request replayed on shell was answered")
			} else if id == after {
				done = true
			}
		case <-timeout:
			t.Fatal("no kernel_info_reply")
		}
	}
	if got := strings.Count(tk.logs.String(), "replayed message dropped"); got != 3 {
		t.Errorf("%d replays logged, want 3", got)
	}
}

// msgIDOf returns the msg_id in the header frame of encoded frames.
func msgIDOf(t *testing.T, c *testClient, frames [][]byte) string {
	m, err := c.signer.Decode(frames)
	if err != nil {
		t.Fatal(err)
	}
	return m.Header.MsgID
}

// TestReplayGuardForgetsTheOldest checks the bound of the guard.
func TestReplayGuardForgetsTheOldest(t *testing.T) {
	g := newReplayGuard(3)
	sig := func(i int) []byte { return []byte(fmt.Sprint("sig", i)) }
	for i := range 5 {
		if !g.fresh(sig(i)) {
			t.Fatalf("signature %d is new", i)
		}
	}
	for i := 2; i < 5; i++ {
		if g.fresh(sig(i)) {
			t.Errorf("signature %d (among the last 3) passed again", i)
		}
	}
	if !g.fresh(sig(0)) || len(g.seen) != 3 || len(g.ring) != 3 {
		t.Errorf("the oldest signature is not forgotten: %d seen, %d in the ring", len(g.seen), len(g.ring))
	}
	if !g.fresh(nil) || !g.fresh(nil) {
		t.Error("unsigned messages (no key) are never replays")
	}
}
