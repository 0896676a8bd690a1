package kernel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/pathnotes/pathnotes/kernel/session"
)

// testKey signs the messages between the test client and kernel.
const testKey = "a0436f6c-1916-498b-8eb9-e81ab9368e84"

// waitFor bounds every wait of a test for a message; a kernel that does not
// answer fails the test instead of hanging it.
const waitFor = 10 * time.Second

// testKernel is an in-process kernel on 127.0.0.1 ports picked by the system.
type testKernel struct {
	k       *Kernel
	session *session.Session
	logs    *syncBuffer
	done    chan struct{} // closed when Run has returned
	err     error         // what Run returned
	cancel  context.CancelFunc
}

// syncBuffer is a log destination that tests read while the kernel writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startKernel runs a kernel with a real session and the kernel's magics, as
// the pathnotes command does; historyPath "" keeps the history in memory. The kernel is shut down when the test ends.
func startKernel(t testing.TB, historyPath string) *testKernel {
	return startKernelWith(t, historyPath, nil)
}

// startKernelWith runs a kernel with in as its interpreter (nil: a session).
func startKernelWith(t testing.TB, historyPath string, in Interpreter) *testKernel {
	t.Helper()
	return startKernelOn(t, ConnectionInfo{Transport: "tcp", IP: "127.0.0.1"}, historyPath, in)
}

// startKernelOn runs a kernel listening where ci says, signing with testKey.
func startKernelOn(t testing.TB, ci ConnectionInfo, historyPath string, in Interpreter) *testKernel {
	t.Helper()
	ci.Key, ci.SignatureScheme = testKey, "hmac-sha256"
	s, err := session.New(session.Options{Prelude: []string{"fmt"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range Magics() {
		if err := s.RegisterMagic(m); err != nil {
			t.Fatal(err)
		}
	}
	if in == nil {
		in = s
	}
	h, _, err := OpenHistory(historyPath)
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	k, err := New(Options{
		Connection:  ci,
		Interpreter: in,
		History:     h,
		Log:         slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Version:     "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tk := &testKernel{k: k, session: s, logs: logs, done: make(chan struct{}), cancel: cancel}
	go func() {
		tk.err = k.Run(ctx)
		close(tk.done)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-tk.done:
		case <-time.After(waitFor):
			t.Error("kernel did not stop after its context was cancelled")
		}
		h.Close()
		s.Close()
		if t.Failed() {
			t.Logf("kernel log:\n%s", tail(logs.String(), 4000))
		}
	})
	return tk
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// testClient is a Jupyter front end made of zmq4 sockets, as jupyter_client
// makes it: DEALER sockets for shell, control and stdin (sharing one
// identity, so that input requests find it), SUB for iopub, REQ for hb.
type testClient struct {
	t       testing.TB
	signer  *Signer
	session string
	shell   zmq4.Socket
	control zmq4.Socket
	stdin   zmq4.Socket
	iopub   zmq4.Socket
	hb      zmq4.Socket
	cancel  context.CancelFunc

	shellMsgs, controlMsgs, stdinMsgs, iopubMsgs chan *Message
}

// requestChannel is a socket that takes requests and the channel on which
// its replies arrive.
type requestChannel struct {
	name string
	sock zmq4.Socket
	msgs chan *Message
}

// requestChannels returns shell and control, the two sockets that answer
// kernel_info.
func (c *testClient) requestChannels() []requestChannel {
	return []requestChannel{{"shell", c.shell, c.shellMsgs}, {"control", c.control, c.controlMsgs}}
}

// connect makes a client of tk signing with key and waits until iopub
// delivers, as jupyter_client's wait_for_ready does.
func connect(t testing.TB, tk *testKernel, key string) *testClient {
	t.Helper()
	ci := tk.k.Connection()
	signer, err := NewSigner(key, "hmac-sha256")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	id := zmq4.WithID(zmq4.SocketIdentity(newID()))
	c := &testClient{t: t, signer: signer, session: newID(), cancel: cancel,
		shell: zmq4.NewDealer(ctx, id), control: zmq4.NewDealer(ctx, id), stdin: zmq4.NewDealer(ctx, id),
		iopub: zmq4.NewSub(ctx), hb: zmq4.NewReq(ctx),
		shellMsgs: make(chan *Message, 1000), controlMsgs: make(chan *Message, 100),
		stdinMsgs: make(chan *Message, 100), iopubMsgs: make(chan *Message, 100000)}
	t.Cleanup(c.close)
	for _, d := range []struct {
		s    zmq4.Socket
		port int
	}{{c.shell, ci.ShellPort}, {c.control, ci.ControlPort}, {c.stdin, ci.StdinPort}, {c.iopub, ci.IOPubPort}, {c.hb, ci.HBPort}} {
		if err := d.s.Dial(ci.endpoint(d.port)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.iopub.SetOption(zmq4.OptionSubscribe, ""); err != nil {
		t.Fatal(err)
	}
	if key != testKey {
		return c // the kernel answers nothing to this client, and its messages do not verify here
	}
	go c.read(c.shell, c.shellMsgs)
	go c.read(c.control, c.controlMsgs)
	go c.read(c.stdin, c.stdinMsgs)
	go c.read(c.iopub, c.iopubMsgs)
	deadline := time.Now().Add(waitFor)
	for {
		id := c.send(c.shell, "kernel_info_request", map[string]any{})
		c.reply(c.shellMsgs, id)
		select {
		case <-c.iopubMsgs:
			c.drainIOPub()
			return c
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("iopub delivered nothing")
		}
	}
}

func (c *testClient) close() {
	c.cancel()
	for _, s := range []zmq4.Socket{c.shell, c.control, c.stdin, c.iopub, c.hb} {
		s.Close()
	}
}

func (c *testClient) read(s zmq4.Socket, out chan<- *Message) {
	for {
		raw, err := s.Recv()
		if err != nil {
			return
		}
		m, err := c.signer.Decode(raw.Frames)
		if err != nil {
			c.t.Errorf("client: undecodable message from the kernel: %v", err)
			continue
		}
		out <- m
	}
}

// send sends a request and returns its msg_id.
func (c *testClient) send(s zmq4.Socket, msgType string, content any) string {
	h := NewHeader(msgType, c.session)
	frames, err := c.signer.Encode(nil, h, nil, nil, content, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := s.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		c.t.Fatal(err)
	}
	return h.MsgID
}

// sendFrames sends raw frames, for malformed messages.
func (c *testClient) sendFrames(s zmq4.Socket, frames ...[]byte) {
	if err := s.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		c.t.Fatal(err)
	}
}

// reply waits for the reply to msgID on ch, skipping replies to others.
func (c *testClient) reply(ch <-chan *Message, msgID string) *Message {
	c.t.Helper()
	m, err := c.replyWithin(ch, msgID, waitFor)
	if err != nil {
		c.t.Fatal(err)
	}
	return m
}

func (c *testClient) replyWithin(ch <-chan *Message, msgID string, d time.Duration) (*Message, error) {
	timeout := time.After(d)
	for {
		select {
		case m := <-ch:
			if parentID(m) == msgID {
				return m, nil
			}
		case <-timeout:
			return nil, errors.New("no reply to " + msgID + " within " + d.String())
		}
	}
}

func parentID(m *Message) string {
	var h Header
	json.Unmarshal(m.RawParent, &h)
	return h.MsgID
}

// outputs collects the iopub messages of request msgID from busy to idle,
// both excluded, checking that busy comes first.
func (c *testClient) outputs(msgID string) []*Message {
	c.t.Helper()
	var out []*Message
	sawBusy := false
	timeout := time.After(waitFor)
	for {
		select {
		case m := <-c.iopubMsgs:
			if parentID(m) != msgID {
				continue
			}
			if m.Header.MsgType == "status" {
				state := content(c.t, m)["execution_state"]
				switch {
				case state == "busy" && !sawBusy && len(out) == 0:
					sawBusy = true
				case state == "idle" && sawBusy:
					return out
				default:
					c.t.Fatalf("status %v out of order for %s", state, msgID)
				}
				continue
			}
			if !sawBusy {
				c.t.Fatalf("%s published before status busy", m.Header.MsgType)
			}
			out = append(out, m)
		case <-timeout:
			c.t.Fatalf("no status idle for %s within %v (got %d messages)", msgID, waitFor, len(out))
		}
	}
}

// drainIOPub drops what iopub holds now.
func (c *testClient) drainIOPub() {
	for {
		select {
		case <-c.iopubMsgs:
		case <-time.After(50 * time.Millisecond):
			return
		}
	}
}

// execute runs code with the given extra request fields and returns the
// reply and the iopub messages between busy and idle.
func (c *testClient) execute(code string, extra map[string]any) (*Message, []*Message) {
	c.t.Helper()
	id := c.send(c.shell, "execute_request", executeContent(code, extra))
	reply := c.reply(c.shellMsgs, id)
	return reply, c.outputs(id)
}

func executeContent(code string, extra map[string]any) map[string]any {
	req := map[string]any{"code": code, "silent": false, "store_history": true,
		"user_expressions": map[string]any{}, "allow_stdin": false, "stop_on_error": true}
	for k, v := range extra {
		req[k] = v
	}
	return req
}

// value runs code and returns the text/plain of its result, failing the
// test if the cell fails.
func (c *testClient) value(code string) string {
	c.t.Helper()
	reply, outs := c.execute(code, nil)
	if st := content(c.t, reply)["status"]; st != "ok" {
		c.t.Fatalf("%q: status %v: %v", code, st, content(c.t, reply))
	}
	for _, m := range outs {
		if m.Header.MsgType == "execute_result" {
			return content(c.t, m)["data"].(map[string]any)["text/plain"].(string)
		}
	}
	c.t.Fatalf("%q: no execute_result", code)
	return ""
}

func content(t testing.TB, m *Message) map[string]any {
	t.Helper()
	var c map[string]any
	if err := json.Unmarshal(m.Content, &c); err != nil {
		t.Fatalf("%s content: %v", m.Header.MsgType, err)
	}
	return c
}

// streamText joins the text of the stream messages named name.
func streamText(t testing.TB, msgs []*Message, name string) string {
	var b strings.Builder
	for _, m := range msgs {
		if m.Header.MsgType == "stream" {
			c := content(t, m)
			if c["name"] == name {
				b.WriteString(c["text"].(string))
			}
		}
	}
	return b.String()
}

func types(msgs []*Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Header.MsgType)
	}
	return out
}
