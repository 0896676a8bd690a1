package kernel

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/kernel/session"
)

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
