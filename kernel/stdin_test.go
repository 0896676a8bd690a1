package kernel

import (
	"strings"
	"testing"
	"time"
)

func TestStdinRoundTrip(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	id := c.send(c.shell, "execute_request", executeContent(
		"var name string\nfmt.Print(\"name? \")\nfmt.Scanln(&name)\n\"hello \" + name", map[string]any{"allow_stdin": true}))
	var req *Message
	select {
	case req = <-c.stdinMsgs:
	case <-time.After(waitFor):
		t.Fatal("no input_request")
	}
	if req.Header.MsgType != "input_request" || parentID(req) != id {
		t.Fatalf("stdin got %s with parent %s", req.Header.MsgType, parentID(req))
	}
	if rc := content(t, req); rc["password"] != false {
		t.Errorf("input_request %v", rc)
	}
	// A reply to some other request is ignored; jupyter_client's replies
	// carry no parent header at all.
	stale, _ := c.signer.Encode(nil, NewHeader("input_reply", c.session), []byte(`{"msg_id":"another-request"}`),
		nil, map[string]any{"value": "Eve"}, nil)
	c.sendFrames(c.stdin, stale...)
	frames, _ := c.signer.Encode(nil, NewHeader("input_reply", c.session), nil, nil, map[string]any{"value": "Ada"}, nil)
	c.sendFrames(c.stdin, frames...)
	reply := content(t, c.reply(c.shellMsgs, id))
	outs := c.outputs(id)
	if reply["status"] != "ok" {
		t.Fatalf("reply %v", reply)
	}
	if s := streamText(t, outs, "stdout"); s != "name? " {
		t.Errorf("prompt printed as %q", s)
	}
	last := outs[len(outs)-1]
	if last.Header.MsgType != "execute_result" ||
		!strings.Contains(content(t, last)["data"].(map[string]any)["text/plain"].(string), "hello Ada") {
		t.Errorf("result %v: %s", types(outs), last.Content)
	}

	// Without allow_stdin, reading fails at once instead of waiting.
	reply2, _ := c.execute("var s string\n_, err := fmt.Scanln(&s)\nerr != nil", map[string]any{"allow_stdin": false})
	if r := content(t, reply2); r["status"] != "ok" {
		t.Errorf("reply %v", r)
	}
	if v := c.value("err"); !strings.Contains(v, "allow_stdin") {
		t.Errorf("error of a read without stdin: %s", v)
	}
}

func TestInterruptWhileWaitingForInput(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	id := c.send(c.shell, "execute_request", executeContent("var s string\nfmt.Scanln(&s)", map[string]any{"allow_stdin": true}))
	select {
	case <-c.stdinMsgs:
	case <-time.After(waitFor):
		t.Fatal("no input_request")
	}
	c.reply(c.controlMsgs, c.send(c.control, "interrupt_request", map[string]any{}))
	m, err := c.replyWithin(c.shellMsgs, id, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r := content(t, m); r["status"] != "error" {
		t.Errorf("reply %v", r)
	}
}
