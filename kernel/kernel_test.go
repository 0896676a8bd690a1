package kernel

import (
	"context"
	"fmt"
	"path/filepath"
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

func TestPanicInCell(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	c.value("n := 7\nn")
	reply, outs := c.execute("panic(\"boom\")", nil)
	r := content(t, reply)
	if r["status"] != "error" || !strings.Contains(fmt.Sprint(r["evalue"], r["traceback"]), "boom") {
		t.Errorf("panic reply %v", r)
	}
	if got := types(outs); got[len(got)-1] != "error" {
		t.Errorf("panic published %v", got)
	}
	reply, _ = c.execute("var m map[string]int\nm[\"a\"] = 1", nil)
	if r := content(t, reply); r["status"] != "error" {
		t.Errorf("nil map write reply %v", r)
	} else if want := fmt.Sprintf("in main (Cell In[%v], line 2)", r["execution_count"]); !strings.Contains(fmt.Sprint(r["traceback"]), want) {
		// The error names the cell by the execution count the kernel gave it.
		t.Errorf("nil map write traceback %v lacks %q", r["traceback"], want)
	}
	if v := c.value("n * 6"); v != "42" {
		t.Errorf("state after panics: n * 6 = %s", v)
	}
}

// panicky is an Interpreter whose every method panics, as a bug in the
// session would.
type panicky struct{}

func (panicky) Execute(context.Context, string, session.Output) (*session.Bundle, error) {
	panic("execute bug")
}
func (panicky) Complete(string, int) ([]string, int, int)        { panic("complete bug") }
func (panicky) Inspect(string, int, int) (*session.Bundle, bool) { panic("inspect bug") }
func (panicky) IsComplete(string) (string, string)               { panic("is_complete bug") }

func TestInterpreterPanicsAreSurvived(t *testing.T) {
	tk := startKernelWith(t, "", panicky{})
	c := connect(t, tk, testKey)
	reply, _ := c.execute("1", nil)
	if r := content(t, reply); r["status"] != "error" || r["ename"] != "KernelPanic" {
		t.Errorf("execute reply %v", r)
	}
	for _, req := range []string{"complete_request", "inspect_request", "is_complete_request"} {
		id := c.send(c.shell, req, map[string]any{"code": "x", "cursor_pos": 1})
		r := content(t, c.reply(c.shellMsgs, id))
		if r["status"] != "ok" && r["status"] != "complete" && r["status"] != "unknown" {
			t.Errorf("%s after a panic: %v", req, r)
		}
	}
	if !strings.Contains(tk.logs.String(), "execute bug") {
		t.Error("the panic is not in the log")
	}
}

func TestBadSignatureIsNotExecuted(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	c.value("state := 1\nstate")
	evil := connect(t, tk, "not-the-key")
	evil.send(evil.shell, "execute_request", executeContent("state = 666", nil))
	// The same request without any signature.
	h := NewHeader("execute_request", "evil")
	unsigned, _ := (&Signer{}).Encode(nil, h, nil, nil, executeContent("state = 667", nil), nil)
	c.sendFrames(c.shell, unsigned...)
	time.Sleep(200 * time.Millisecond)
	if v := c.value("state"); v != "1" {
		t.Fatalf("state = %s after badly signed requests: one was executed", v)
	}
	if n := strings.Count(tk.logs.String(), ErrBadSignature.Error()); n != 2 {
		t.Errorf("%d bad signatures logged, want 2", n)
	}
}

func TestMalformedAndUnknownMessages(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	c.sendFrames(c.shell, []byte("no delimiter"), []byte("at all"))
	c.sendFrames(c.control, handFrames(testKey, nil, `{"msg_type":"execute_request","msg_id":"x"`, `{}`, `{}`, `{}`)...)
	c.sendFrames(c.shell, handFrames(testKey, nil, testHeader, `{}`, `{}`, `{"code": 1+}`)...)
	// Valid JSON of the wrong shape: an error reply, not a crash.
	wrong := c.send(c.shell, "execute_request", map[string]any{"code": 42})
	if r := content(t, c.reply(c.shellMsgs, wrong)); r["status"] != "error" {
		t.Errorf("execute_request with a number for code: %v", r)
	}
	unknown := c.send(c.shell, "frobnicate_request", map[string]any{})
	unknownCtl := c.send(c.control, "debug_request", map[string]any{})
	if m, err := c.replyWithin(c.shellMsgs, unknown, 300*time.Millisecond); err == nil {
		t.Errorf("unknown request answered with %s", m.Header.MsgType)
	}
	if m, err := c.replyWithin(c.controlMsgs, unknownCtl, 300*time.Millisecond); err == nil {
		t.Errorf("unknown control request answered with %s", m.Header.MsgType)
	}
	if v := c.value("1 + 1"); v != "2" {
		t.Errorf("after malformed messages: %s", v)
	}
	logs := tk.logs.String()
	for _, want := range []string{"no <IDS|MSG> delimiter", "header", "content is not JSON", "frobnicate_request", "debug_request"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log does not mention %q", want)
		}
	}
}

func TestLargeOutput(t *testing.T) {
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	const size = 10 << 20
	reply, outs := c.execute(fmt.Sprintf("import \"strings\"\nfmt.Print(strings.Repeat(\"0123456789\", %d))", size/10), nil)
	if r := content(t, reply); r["status"] != "ok" {
		t.Fatalf("reply %v", r)
	}
	text := streamText(t, outs, "stdout")
	if len(text) != size || text[:20] != "01234567890123456789" || text[size-10:] != "0123456789" {
		t.Fatalf("got %d bytes of stdout, want %d", len(text), size)
	}
	n := 0
	for _, m := range outs {
		if m.Header.MsgType == "stream" {
			n++
			if l := len(content(t, m)["text"].(string)); l > streamChunk {
				t.Errorf("a stream message of %d bytes (limit %d)", l, streamChunk)
			}
		}
	}
	t.Logf("10 MB arrived in %d stream messages", n)
	if v := c.value("40 + 2"); v != "42" {
		t.Errorf("after the large output: %s", v)
	}
}

func TestManyExecutionsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 executions: skipped with -short")
	}
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	c.value("count := 0\ncount")
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	const total, warm = 1000, 200
	var base uint64
	for i := 1; i <= total; i++ {
		reply, _ := c.execute("count++", nil)
		if r := content(t, reply); r["status"] != "ok" {
			t.Fatalf("execution %d: %v", i, r)
		}
		if i == warm {
			base = heap()
		}
	}
	grown := int64(heap()) - int64(base)
	perCell := grown / (total - warm)
	t.Logf("heap %d MB after %d cells, %+d bytes per cell over the last %d", heap()>>20, total, perCell, total-warm)
	if v := c.value("count"); v != fmt.Sprint(total) {
		t.Errorf("count = %s", v)
	}
	// Each cell keeps a history line (tens of bytes) and whatever the
	// interpreter keeps of compiled code; 20 kB per cell would be a leak of
	// messages or outputs.
	if perCell > 20<<10 {
		t.Errorf("heap grows by %d bytes per cell", perCell)
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

func TestHistoryAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	tk := startKernel(t, path)
	c := connect(t, tk, testKey)
	c.value("a := 6\na * 7")
	c.execute("a = 1", map[string]any{"store_history": false})
	c.execute("silent := 1", map[string]any{"silent": true})
	c.value("a + 1")
	id := c.send(c.control, "shutdown_request", map[string]any{"restart": true})
	if r := content(t, c.reply(c.controlMsgs, id)); r["status"] != "ok" || r["restart"] != true {
		t.Errorf("shutdown_reply %v", r)
	}
	select {
	case <-tk.done:
		if tk.err != nil {
			t.Errorf("Run after shutdown: %v", tk.err)
		}
	case <-time.After(waitFor):
		t.Fatal("Run did not return after shutdown_request")
	}
	// The old ports are closed: a new connection gets no answer.
	if err := c.hb.Send(zmq4.NewMsg([]byte("ping"))); err == nil {
		done := make(chan struct{})
		go func() { c.hb.Recv(); close(done) }()
		select {
		case <-done:
			t.Error("heartbeat answered after shutdown")
		case <-time.After(300 * time.Millisecond):
		}
	}

	// The front end starts a new process: a new kernel on the same file.
	tk2 := startKernel(t, path)
	c2 := connect(t, tk2, testKey)
	id = c2.send(c2.shell, "history_request", map[string]any{"output": true, "raw": true, "hist_access_type": "tail", "n": 10})
	h := content(t, c2.reply(c2.shellMsgs, id))["history"].([]any)
	want := `[[1 1 [a := 6
a * 7 42]] [1 2 [a + 1 2]]]`
	if got := fmt.Sprint(h); got != want {
		t.Errorf("history after restart = %s, want %s", got, want)
	}
	if v := c2.value("7"); v != "7" {
		t.Fatal(v)
	}
	id = c2.send(c2.shell, "history_request", map[string]any{"output": false, "raw": true, "hist_access_type": "range",
		"session": 0, "start": 1, "stop": 2})
	if got := fmt.Sprint(content(t, c2.reply(c2.shellMsgs, id))["history"]); got != "[[2 1 7]]" {
		t.Errorf("range of the new session = %s", got)
	}
	id = c2.send(c2.shell, "history_request", map[string]any{"output": false, "raw": true, "hist_access_type": "search",
		"pattern": "a*", "unique": true})
	if got := fmt.Sprint(content(t, c2.reply(c2.shellMsgs, id))["history"]); got != "[[1 1 a := 6\na * 7] [1 2 a + 1]]" {
		t.Errorf("search a* = %s", got)
	}
	id = c2.send(c2.shell, "history_request", map[string]any{"output": false, "raw": true, "hist_access_type": "nonsense"})
	if r := content(t, c2.reply(c2.shellMsgs, id)); r["status"] != "error" {
		t.Errorf("bad hist_access_type: %v", r)
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
