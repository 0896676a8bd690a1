package kernel

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/pathnotes/pathnotes/kernel/session"
)

func TestKernelInfo(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	for _, ch := range c.requestChannels() {
		id := c.send(ch.sock, "kernel_info_request", map[string]any{})
		reply := c.reply(ch.msgs, id)
		if reply.Header.MsgType != "kernel_info_reply" || reply.Header.Version != "5.3" {
			t.Fatalf("%s: reply header %+v", ch.name, reply.Header)
		}
		info := content(t, reply)
		li := info["language_info"].(map[string]any)
		want := map[string]any{"name": "go", "version": runtime.Version(), "mimetype": "text/x-go",
			"file_extension": ".go", "pygments_lexer": "go", "codemirror_mode": "go"}
		for k, v := range want {
			if li[k] != v {
				t.Errorf("%s: language_info.%s = %v, want %v", ch.name, k, li[k], v)
			}
		}
		if info["status"] != "ok" || info["protocol_version"] != "5.3" || info["implementation"] != "pathnotes" ||
			info["implementation_version"] != "test" || !strings.Contains(info["banner"].(string), "pathnotes") ||
			len(info["help_links"].([]any)) == 0 {
			t.Errorf("%s: kernel_info %v", ch.name, info)
		}
		if outs := c.outputs(id); len(outs) != 0 {
			t.Errorf("%s: kernel_info published %v", ch.name, types(outs))
		}
	}
}

func TestHeartbeat(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	for i := 0; i < 3; i++ {
		ping := []byte(fmt.Sprintf("ping %d", i))
		if err := c.hb.Send(zmq4.NewMsg(ping)); err != nil {
			t.Fatal(err)
		}
		m, err := c.hb.Recv()
		if err != nil || len(m.Frames) != 1 || string(m.Frames[0]) != string(ping) {
			t.Fatalf("heartbeat echoed %q, %v", m.Frames, err)
		}
	}
}

// registerOutputMagic gives the session a cell magic that publishes a
// display, updates it and asks for clear_output before running its body,
// the kinds of output plain Go cells do not produce by themselves.
func registerOutputMagic(t *testing.T, s *session.Session) {
	err := s.RegisterMagic(session.Magic{Name: "outputs", Cell: true, Usage: "%%outputs",
		Help: "test: publish display, update and clear_output, then run the cell",
		Run: func(ctx context.Context, s *session.Session, _, body string, out session.Output) (*session.Bundle, error) {
			out.Display(session.Bundle{Data: map[string]any{"text/plain": "one", "text/html": "<b>one</b>"}}, "d1", false)
			out.Display(session.Bundle{Data: map[string]any{"text/plain": "two"}}, "d1", true)
			out.Display(session.Bundle{Data: map[string]any{"text/plain": "anonymous"}}, "", false)
			out.ClearOutput(true)
			return s.RunCode(ctx, body)
		}})
	if err != nil {
		t.Fatal(err)
	}
}

func TestExecuteOutputKinds(t *testing.T) {
	tk := startKernel(t, "")
	registerOutputMagic(t, tk.session)
	c := connect(t, tk, testKey)

	code := "%%outputs\nimport \"os\"\nfmt.Println(\"to stdout\")\nfmt.Fprintln(os.Stderr, \"to stderr\")\n6 * 7"
	id := c.send(c.shell, "execute_request", executeContent(code, nil))
	reply := content(t, c.reply(c.shellMsgs, id))
	outs := c.outputs(id)
	if reply["status"] != "ok" || reply["execution_count"] != 1.0 {
		t.Fatalf("reply %v", reply)
	}
	got := types(outs)
	for _, want := range []string{"execute_input", "display_data", "update_display_data", "clear_output", "stream", "execute_result"} {
		if !strings.Contains(strings.Join(got, " "), want) {
			t.Errorf("no %s among %v", want, got)
		}
	}
	if got[0] != "execute_input" || got[len(got)-1] != "execute_result" {
		t.Errorf("order %v: want execute_input first, execute_result last", got)
	}
	for _, m := range outs {
		c := content(t, m)
		switch m.Header.MsgType {
		case "execute_input":
			if c["code"] != code || c["execution_count"] != 1.0 {
				t.Errorf("execute_input %v", c)
			}
		case "display_data":
			tr := c["transient"].(map[string]any)
			data := c["data"].(map[string]any)
			if data["text/plain"] == "one" && (tr["display_id"] != "d1" || data["text/html"] != "<b>one</b>") {
				t.Errorf("display_data %v", c)
			}
			if data["text/plain"] == "anonymous" && len(tr) != 0 {
				t.Errorf("display without id has transient %v", tr)
			}
		case "update_display_data":
			if c["transient"].(map[string]any)["display_id"] != "d1" || c["data"].(map[string]any)["text/plain"] != "two" {
				t.Errorf("update_display_data %v", c)
			}
		case "clear_output":
			if c["wait"] != true {
				t.Errorf("clear_output %v", c)
			}
		case "execute_result":
			if c["execution_count"] != 1.0 || c["data"].(map[string]any)["text/plain"] != "42" {
				t.Errorf("execute_result %v", c)
			}
		}
	}
	if s := streamText(t, outs, "stdout"); s != "to stdout\n" {
		t.Errorf("stdout %q", s)
	}
	if s := streamText(t, outs, "stderr"); s != "to stderr\n" {
		t.Errorf("stderr %q", s)
	}

	// An error: one error message on iopub, an error reply, the count moves on.
	reply2, outs2 := c.execute("var q int = \"s\"", nil)
	r := content(t, reply2)
	if r["status"] != "error" || r["execution_count"] != 2.0 || r["ename"] == "" {
		t.Errorf("error reply %v", r)
	}
	if got := types(outs2); len(got) != 2 || got[0] != "execute_input" || got[1] != "error" {
		t.Fatalf("error cell published %v", got)
	}
	e := content(t, outs2[1])
	if e["ename"] != r["ename"] || e["evalue"] != r["evalue"] || len(e["traceback"].([]any)) == 0 {
		t.Errorf("error message %v vs reply %v", e, r)
	}
}

func TestKernelMagics(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	reply, outs := c.execute("%clear wait\nfmt.Println(1)", nil)
	if r := content(t, reply); r["status"] != "ok" {
		t.Fatalf("%%clear: %v", r)
	}
	if got := fmt.Sprint(types(outs)); got != "[execute_input clear_output stream]" {
		t.Errorf("%%clear published %s", got)
	} else if content(t, outs[1])["wait"] != true {
		t.Errorf("clear_output %s", outs[1].Content)
	}
	_, outs = c.execute("%clear", nil)
	if len(outs) != 2 || content(t, outs[1])["wait"] != false {
		t.Errorf("%%clear without wait: %v", types(outs))
	}
	_, outs = c.execute("%%display text/html\n<b>bold</b>", nil)
	if len(outs) != 2 || outs[1].Header.MsgType != "display_data" {
		t.Fatalf("%%%%display published %v", types(outs))
	}
	data := content(t, outs[1])["data"].(map[string]any)
	if data["text/html"] != "<b>bold</b>" || data["text/plain"] != "<text/html, 11 bytes>" {
		t.Errorf("display data %v", data)
	}
	for _, bad := range []string{"%clear later", "%%display\nx", "%%display html\nx"} {
		reply, _ := c.execute(bad, nil)
		if r := content(t, reply); r["status"] != "error" {
			t.Errorf("%q: %v", bad, r)
		}
	}
}

func TestExitAsksTheFrontEndToLeave(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	reply, outs := c.execute("exit", nil)
	r := content(t, reply)
	payload := fmt.Sprint(r["payload"])
	if r["status"] != "ok" || payload != "[map[keepkernel:false source:ask_exit]]" {
		t.Errorf("exit reply %v", r)
	}
	if got := fmt.Sprint(types(outs)); got != "[execute_input]" {
		t.Errorf("exit published %s", got)
	}
	if v := c.value("1"); v != "1" {
		t.Errorf("the kernel itself must stay: %s", v)
	}
}

func TestSilentAndUserExpressions(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	reply, outs := c.execute("a := 20", map[string]any{"silent": true})
	if r := content(t, reply); r["status"] != "ok" || r["execution_count"] != 0.0 {
		t.Errorf("silent reply %v", r)
	}
	if len(outs) != 0 {
		t.Errorf("silent cell published %v", types(outs))
	}
	reply, outs = c.execute("a + 1", map[string]any{"silent": true})
	if len(outs) != 0 {
		t.Errorf("silent expression published %v", types(outs))
	}
	reply, _ = c.execute("a++", map[string]any{"user_expressions": map[string]any{
		"double": "a * 2", "bad": "undefinedName"}})
	r := content(t, reply)
	if r["execution_count"] != 1.0 {
		t.Errorf("count after silent cells %v, want 1", r["execution_count"])
	}
	ue := r["user_expressions"].(map[string]any)
	double := ue["double"].(map[string]any)
	if double["status"] != "ok" || double["data"].(map[string]any)["text/plain"] != "42" {
		t.Errorf("user expression double = %v", double)
	}
	if bad := ue["bad"].(map[string]any); bad["status"] != "error" || bad["ename"] == "" {
		t.Errorf("user expression bad = %v", bad)
	}
}

func TestStreamFlushedWhileRunning(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	start := time.Now()
	id := c.send(c.shell, "execute_request", executeContent(
		"import \"time\"\nfmt.Println(\"first\")\ntime.Sleep(1500 * time.Millisecond)\nfmt.Println(\"second\")", nil))
	var firstAt time.Duration
	timeout := time.After(waitFor)
	for firstAt == 0 {
		select {
		case m := <-c.iopubMsgs:
			if parentID(m) == id && m.Header.MsgType == "stream" {
				if text := content(t, m)["text"]; text != "first\n" {
					t.Fatalf("first stream message %q", text)
				}
				firstAt = time.Since(start)
			}
		case <-timeout:
			t.Fatal("no stream message")
		}
	}
	c.reply(c.shellMsgs, id)
	if done := time.Since(start); done-firstAt < 700*time.Millisecond {
		t.Errorf("first line arrived at %v, the cell ended at %v: not streamed while running", firstAt, done)
	}
}

func TestInterruptInfiniteLoop(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	if v := c.value("x := 41\nx + 1"); v != "42" {
		t.Fatalf("x + 1 = %s", v)
	}
	id := c.send(c.shell, "execute_request", executeContent("for {\n}", nil))
	time.Sleep(300 * time.Millisecond) // let the loop start
	sent := time.Now()
	iid := c.send(c.control, "interrupt_request", map[string]any{})
	ir := c.reply(c.controlMsgs, iid)
	if content(t, ir)["status"] != "ok" {
		t.Errorf("interrupt_reply %v", content(t, ir))
	}
	m, err := c.replyWithin(c.shellMsgs, id, time.Second)
	if err != nil {
		t.Fatalf("the loop was not stopped within a second of the interrupt: %v", err)
	}
	r := content(t, m)
	if r["status"] != "error" || r["ename"] != "Interrupted" {
		t.Errorf("interrupted reply %v", r)
	}
	t.Logf("interrupt answered after %v", time.Since(sent))
	if v := c.value("x"); v != "41" {
		t.Errorf("x after the interrupt = %s, want 41", v)
	}
}

func TestStopOnErrorAbortsQueued(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	first := c.send(c.shell, "execute_request", executeContent("import \"time\"\ntime.Sleep(300 * time.Millisecond)\npanic(\"stop\")", nil))
	second := c.send(c.shell, "execute_request", executeContent("y := 1", nil))
	third := c.send(c.shell, "execute_request", executeContent("y", nil))
	info := c.send(c.shell, "kernel_info_request", map[string]any{})
	if r := content(t, c.reply(c.shellMsgs, first)); r["status"] != "error" {
		t.Fatalf("first: %v", r)
	}
	for _, id := range []string{second, third} {
		if r := content(t, c.reply(c.shellMsgs, id)); r["status"] != "aborted" {
			t.Errorf("queued cell: %v, want aborted", r)
		}
		if outs := c.outputs(id); len(outs) != 0 {
			t.Errorf("aborted cell published %v", types(outs))
		}
	}
	if r := content(t, c.reply(c.shellMsgs, info)); r["status"] != "ok" {
		t.Errorf("kernel_info queued behind the error: %v", r)
	}
	reply, _ := c.execute("y", nil)
	if r := content(t, reply); r["status"] != "error" {
		t.Errorf("y exists: an aborted cell ran (%v)", r)
	}

	// Without stop_on_error the queue runs.
	first = c.send(c.shell, "execute_request", executeContent("panic(\"go on\")", map[string]any{"stop_on_error": false}))
	second = c.send(c.shell, "execute_request", executeContent("z := 5\nz", nil))
	if r := content(t, c.reply(c.shellMsgs, first)); r["status"] != "error" {
		t.Errorf("first: %v", r)
	}
	if r := content(t, c.reply(c.shellMsgs, second)); r["status"] != "ok" {
		t.Errorf("cell after an error without stop_on_error: %v", r)
	}
}

func TestCompleteInspectIsComplete(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	id := c.send(c.shell, "complete_request", map[string]any{"code": "fmt.Sprin", "cursor_pos": 9})
	r := content(t, c.reply(c.shellMsgs, id))
	if r["status"] != "ok" || !strings.Contains(fmt.Sprint(r["matches"]), "Sprintf") || r["cursor_end"] != 9.0 {
		t.Errorf("complete_reply %v", r)
	}
	id = c.send(c.shell, "inspect_request", map[string]any{"code": "fmt.Println", "cursor_pos": 6, "detail_level": 0})
	r = content(t, c.reply(c.shellMsgs, id))
	if r["status"] != "ok" || r["found"] != true || r["data"].(map[string]any)["text/plain"] == nil {
		t.Errorf("inspect_reply %v", r)
	}
	for code, want := range map[string]string{"x := 1": "complete", "func f() {": "incomplete", "x := )": "invalid"} {
		id = c.send(c.shell, "is_complete_request", map[string]any{"code": code})
		if r := content(t, c.reply(c.shellMsgs, id)); r["status"] != want {
			t.Errorf("is_complete(%q) = %v, want %s", code, r, want)
		}
	}
}

func TestComms(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	id := c.send(c.shell, "comm_info_request", map[string]any{})
	r := content(t, c.reply(c.shellMsgs, id))
	if r["status"] != "ok" || len(r["comms"].(map[string]any)) != 0 {
		t.Errorf("comm_info_reply %v", r)
	}
	id = c.send(c.shell, "comm_open", map[string]any{"comm_id": "c1", "target_name": "jupyter.widget", "data": map[string]any{}})
	outs := c.outputs(id)
	if len(outs) != 1 || outs[0].Header.MsgType != "comm_close" || content(t, outs[0])["comm_id"] != "c1" {
		t.Errorf("comm_open answered with %v", types(outs))
	}
}

func TestShutdownWithoutRestart(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	// Shutdown on shell (older front ends) while a cell runs: answered at once.
	c.send(c.shell, "execute_request", executeContent("import \"time\"\ntime.Sleep(time.Minute)", nil))
	time.Sleep(200 * time.Millisecond)
	id := c.send(c.shell, "shutdown_request", map[string]any{"restart": false})
	if r := content(t, c.reply(c.shellMsgs, id)); r["restart"] != false {
		t.Errorf("shutdown_reply %v", r)
	}
	select {
	case <-tk.done:
		if tk.err != nil {
			t.Errorf("Run: %v", tk.err)
		}
	case <-time.After(waitFor):
		t.Fatal("Run did not return")
	}
}

// TestShutdownPublishesIdle checks that a shutdown_request gets its reply,
// its shutdown_reply on iopub and its status idle before the kernel closes
// its sockets, and that nothing fails to go out on the way.
func TestShutdownPublishesIdle(t *testing.T) {
	for i := range 20 {
		tk := startKernel(t, "")
		c := connect(t, tk, testKey)
		id := c.send(c.control, "shutdown_request", map[string]any{"restart": true})
		c.reply(c.controlMsgs, id)
		out := c.outputs(id)
		if len(out) != 1 || out[0].Header.MsgType != "shutdown_reply" {
			t.Fatalf("round %d: iopub between busy and idle: %d messages", i, len(out))
		}
		select {
		case <-tk.done:
		case <-time.After(waitFor):
			t.Fatal("Run did not return")
		}
		if logs := tk.logs.String(); strings.Contains(logs, "send failed") {
			t.Fatalf("round %d: a message did not go out:\n%s", i, tail(logs, 2000))
		}
	}
}

// BenchmarkExecuteRoundTrip measures a trivial execute_request from send to
// status idle, through real sockets on 127.0.0.1.
func BenchmarkExecuteRoundTrip(b *testing.B) {
	tk := startKernel(b, "")
	c := connect(b, tk, testKey)
	c.value("x := 0\nx")
	b.ResetTimer()
	for b.Loop() {
		c.execute("x++", nil)
	}
}

// TestStreamGathersLines checks that lines printed in quick succession
// reach the front end as one stream message, not one message per line.
func TestStreamGathersLines(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	_, outs := c.execute("for i := 0; i < 50; i++ {\n\tfmt.Println(\"line\", i)\n}", nil)
	var streams int
	for _, m := range outs {
		if m.Header.MsgType == "stream" {
			streams++
		}
	}
	if text := streamText(t, outs, "stdout"); streams != 1 || !strings.HasPrefix(text, "line 0\n") || !strings.HasSuffix(text, "line 49\n") {
		t.Errorf("%d stream messages with %q: want the 50 lines in one", streams, text)
	}
}
