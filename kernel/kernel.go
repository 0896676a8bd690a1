// Package kernel speaks the Jupyter messaging protocol (version 5.3) over
// ZeroMQ for the pathnotes Go kernel: it binds the five sockets of a
// connection file, signs and checks messages, answers the shell, control
// and stdin requests, publishes output on iopub, and hands the Go code of
// each cell to an Interpreter (a kernel/session.Session).
//
// Requests on the shell socket run one at a time, in order, on the
// execution goroutine. Control requests are answered on the goroutine that
// reads them, so that an interrupt or a shutdown is answered while a cell
// runs. Nothing a front end sends can stop the kernel except a
// shutdown_request: bad signatures, replayed messages, malformed JSON,
// unknown message types and panics of the interpreter are logged and
// survived, and a connection that announces a frame or a message over the
// bounds (Options.MaxFrame, Options.MaxMessage), would hold more than the
// connections not yet verified may hold together (Options.MaxUnverified),
// sends a handshake that is not a well-formed READY, does not finish its
// handshake in time, or stalls in the middle of a message, is closed
// alone. Each port keeps at most Options.MaxConnections connections,
// never evicting one that has sent a message with a good signature.
package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/pathnotes/pathnotes/kernel/session"
)

// Interpreter runs the code of cells; *session.Session implements it.
// Execute must stop soon after ctx is cancelled (an interrupt).
type Interpreter interface {
	Execute(ctx context.Context, code string, out session.Output) (*session.Bundle, error)
	Complete(code string, cursor int) (matches []string, start, end int)
	Inspect(code string, cursor, detailLevel int) (*session.Bundle, bool)
	IsComplete(code string) (status, indent string)
}

// Options configure a Kernel.
type Options struct {
	// Connection says where to listen and how to sign; ports of 0 are
	// picked by the kernel (see Kernel.Connection).
	Connection ConnectionInfo
	// Interpreter runs the cells. Required.
	Interpreter Interpreter
	// History keeps executed cells; nil keeps them in memory only.
	History *History
	// Log receives the kernel's log, with the msg_type and msg_id of the
	// message concerned; nil discards it.
	Log *slog.Logger
	// Version is the implementation_version of kernel_info_reply.
	Version string
	// Stdio, when set, is the capture of the process's standard output and
	// error (see CaptureStdio), whose text the kernel sends to the running
	// cell's output.
	Stdio *StdioCapture
	// MaxFrame is the largest ZeroMQ frame, in bytes, that the kernel
	// reads from a peer; a connection that announces a larger one is
	// closed (and logged) before anything is allocated for it, and the
	// kernel serves on. 0 means $PATHNOTES_MAX_FRAME (see MaxFrameEnv),
	// or DefaultMaxFrame when that is unset.
	MaxFrame int64
	// MaxMessage bounds the frames of one message together, in bytes,
	// counting 64 bytes a frame beside its body; a connection whose
	// message goes over it is closed as for MaxFrame. 0 means
	// $PATHNOTES_MAX_MESSAGE, or DefaultMaxMessage.
	MaxMessage int64
	// MaxUnverified bounds, in bytes, what all connections that have not
	// sent a message with a good signature hold together of the messages
	// they are sending (beyond the first 64 KiB each); a connection whose
	// message would go over it is closed. 0 means
	// $PATHNOTES_MAX_UNVERIFIED, or DefaultMaxUnverified.
	MaxUnverified int64
	// MaxConnections is the most connections each port keeps; past it, a
	// new connection evicts one that has not sent a message with a good
	// signature. 0 means $PATHNOTES_MAX_CONNECTIONS, or
	// DefaultMaxConnections.
	MaxConnections int
}

// Kernel is one running Jupyter kernel. Create it with New, serve with Run.
type Kernel struct {
	opts    Options
	log     *slog.Logger
	signer  *Signer
	session string // our session id, in the header of every message we send
	conn    ConnectionInfo
	history *History

	sockCtx  context.Context
	sockStop context.CancelFunc
	shell    *channel
	control  *channel
	stdin    *channel
	iopub    *channel
	hb       *hbSocket
	replays  *replayGuard // signatures of the messages received lately
	wire     wireLimits   // the bounds of the five ports

	queue    chan *Message // shell requests waiting for the execution goroutine
	inputs   chan *Message // input_reply messages from the stdin socket
	done     chan struct{} // closed when a shutdown_request has been answered
	shutOnce sync.Once     // closes done
	stopped  sync.Once     // closes the sockets

	execCount int // touched by the execution goroutine only

	cellMu     sync.Mutex
	cancelCell context.CancelFunc // cancels the running cell; nil when idle
	lastOut    atomic.Pointer[cellOutput]
}

// channel is one ROUTER or PUB socket and its name in logs.
type channel struct {
	name string
	sock socket
	mu   sync.Mutex // keeps the frames of concurrent senders in order
}

// New binds the kernel's sockets as opts.Connection says. Call Run to serve
// and Close (or a shutdown_request) to release them.
func New(opts Options) (*Kernel, error) {
	if opts.Interpreter == nil {
		return nil, errors.New("kernel: Options.Interpreter is nil")
	}
	if err := opts.Connection.check(); err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	signer, err := NewSigner(opts.Connection.Key, opts.Connection.SignatureScheme)
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	k := &Kernel{
		opts:    opts,
		log:     opts.Log,
		signer:  signer,
		session: newID(),
		conn:    opts.Connection,
		history: opts.History,
		queue:   make(chan *Message, 4096),
		inputs:  make(chan *Message, 16),
		done:    make(chan struct{}),
		replays: newReplayGuard(recentSignatures),
	}
	if k.log == nil {
		k.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if k.history == nil {
		k.history, _, _ = OpenHistory("") // in memory: cannot fail
	}
	limits, err := newWireLimits(opts, k.log)
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	k.wire = limits
	k.sockCtx, k.sockStop = context.WithCancel(context.Background())
	k.shell, k.control, k.stdin = &channel{name: "shell"}, &channel{name: "control"}, &channel{name: "stdin"}
	for ch, handle := range map[*channel]func(*Message){
		k.shell: k.handleShell, k.control: k.handleControl, k.stdin: k.handleStdin} {
		ch.sock = newRouter(k.sockCtx, k.log, ch.name, limits, sendTimeout, k.deliver(ch, handle))
	}
	k.iopub = &channel{name: "iopub", sock: newIOPub(k.sockCtx, k.log, limits)}
	k.hb = newHeartbeat(k.sockCtx, k.log, limits)
	for _, b := range []struct {
		sock port
		port *int
		name string
	}{
		{k.shell.sock, &k.conn.ShellPort, "shell"},
		{k.control.sock, &k.conn.ControlPort, "control"},
		{k.stdin.sock, &k.conn.StdinPort, "stdin"},
		{k.iopub.sock, &k.conn.IOPubPort, "iopub"},
		{k.hb, &k.conn.HBPort, "hb"},
	} {
		if err := b.sock.Listen(k.conn.listenEndpoint(*b.port)); err != nil {
			k.closeSockets()
			return nil, fmt.Errorf("kernel: %s socket: %w", b.name, err)
		}
		if a, ok := b.sock.Addr().(*net.TCPAddr); ok {
			*b.port = a.Port
		}
	}
	return k, nil
}

// Connection returns the connection information with the ports actually
// bound, for a client (or a connection file) to use.
func (k *Kernel) Connection() ConnectionInfo { return k.conn }

// Run serves requests until ctx is cancelled or a shutdown_request has been
// answered; then it closes the sockets. It returns nil after a shutdown
// request and ctx.Err() after cancellation.
func (k *Kernel) Run(ctx context.Context) error {
	k.log.Info("kernel started", "session", k.session, "history_session", k.history.Session(),
		"shell_port", k.conn.ShellPort, "iopub_port", k.conn.IOPubPort, "control_port", k.conn.ControlPort)
	k.publish(nil, "status", map[string]any{"execution_state": "starting"})
	if k.opts.Stdio != nil {
		k.opts.Stdio.setSink(k.processOutput)
	}
	defer func() {
		if k.opts.Stdio != nil {
			k.opts.Stdio.setSink(nil)
		}
	}()

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan struct{})
	go func() {
		defer close(served)
		for {
			select {
			case m := <-k.queue:
				k.dispatchShell(runCtx, m)
			case <-runCtx.Done():
				return
			}
		}
	}()
	var err error
	select {
	case <-k.done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	cancel()
	k.Interrupt()
	select {
	case <-served:
	case <-time.After(stopGrace):
		// A cell that ignores its context (compiled code in a loop) cannot
		// be stopped from Go; the process exit after Run ends it.
		k.log.Warn("the running cell did not stop after the interrupt; leaving it behind", "grace", stopGrace)
	}
	k.closeSockets()
	return err
}

// stopGrace is how long Run waits for the running cell to stop at shutdown.
const stopGrace = 2 * time.Second

// sendTimeout bounds a write to a front end that went away or stopped
// reading.
const sendTimeout = 10 * time.Second

// Close releases the sockets of a kernel that is not running (Run closes
// them itself when it returns).
func (k *Kernel) Close() error {
	k.closeSockets()
	return nil
}

func (k *Kernel) closeSockets() {
	k.stopped.Do(func() {
		k.sockStop()
		for _, s := range []port{k.shell.sock, k.control.sock, k.stdin.sock, k.iopub.sock, k.hb} {
			s.Close()
		}
	})
}

// Interrupt cancels the running cell, if any. It is what an
// interrupt_request and SIGINT do.
func (k *Kernel) Interrupt() {
	k.cellMu.Lock()
	defer k.cellMu.Unlock()
	if k.cancelCell != nil {
		k.cancelCell()
	}
}

// deliver returns the handler of ch's router socket: it decodes and
// verifies each message and passes it to handle, on the goroutine that read
// it, unless its signature was seen lately; the others are logged and
// dropped. It judges a message passed on verified, the others refused.
func (k *Kernel) deliver(ch *channel, handle func(*Message)) func(zmq4.Msg) standing {
	return func(raw zmq4.Msg) standing {
		m, err := k.signer.Decode(raw.Frames)
		if err != nil {
			k.log.Warn("message dropped", "channel", ch.name, "frames", len(raw.Frames), "err", err)
			return standingRefused
		}
		if !k.replays.fresh(m.Signature) {
			k.log.Warn("replayed message dropped: its signature was seen before", "channel", ch.name,
				"msg_type", m.Header.MsgType, "msg_id", m.Header.MsgID)
			return standingRefused
		}
		k.log.Debug("recv", "channel", ch.name, "msg_type", m.Header.MsgType, "msg_id", m.Header.MsgID)
		handle(m)
		return standingVerified
	}
}

// handleShell queues a shell request for the execution goroutine, except a
// shutdown or interrupt, which must not wait behind a running cell.
func (k *Kernel) handleShell(m *Message) {
	switch m.Header.MsgType {
	case "shutdown_request", "interrupt_request":
		k.dispatchControl(k.shell, m)
	default:
		select {
		case k.queue <- m:
		case <-k.sockCtx.Done():
		}
	}
}

// handleControl answers a control request at once.
func (k *Kernel) handleControl(m *Message) { k.dispatchControl(k.control, m) }

// handleStdin passes an input_reply to the cell waiting for it.
func (k *Kernel) handleStdin(m *Message) {
	if m.Header.MsgType != "input_reply" {
		k.log.Warn("unexpected message on stdin, ignored", "msg_type", m.Header.MsgType, "msg_id", m.Header.MsgID)
		return
	}
	select {
	case k.inputs <- m:
	default:
		k.log.Warn("input_reply dropped: nobody is waiting for input", "msg_id", m.Header.MsgID)
	}
}

// dispatchControl answers a control request (or a shutdown or interrupt
// request that came on shell), on the goroutine that read it.
func (k *Kernel) dispatchControl(ch *channel, m *Message) {
	k.busy(m, func() {
		switch m.Header.MsgType {
		case "kernel_info_request":
			k.reply(ch, m, "kernel_info_reply", k.kernelInfo())
		case "interrupt_request":
			k.Interrupt()
			k.reply(ch, m, "interrupt_reply", map[string]any{"status": "ok"})
		case "shutdown_request":
			k.shutdown(ch, m)
		default:
			k.unknown(ch, m)
		}
	})
	if m.Header.MsgType == "shutdown_request" {
		// After its status idle: Run closes the sockets once done is closed.
		k.shutOnce.Do(func() { close(k.done) })
	}
}

// dispatchShell answers a shell request, on the execution goroutine.
func (k *Kernel) dispatchShell(ctx context.Context, m *Message) {
	abort := 0
	k.busy(m, func() {
		switch m.Header.MsgType {
		case "execute_request":
			abort = k.execute(ctx, m)
		case "kernel_info_request":
			k.reply(k.shell, m, "kernel_info_reply", k.kernelInfo())
		case "complete_request":
			k.complete(m)
		case "inspect_request":
			k.inspect(m)
		case "is_complete_request":
			k.isComplete(m)
		case "history_request":
			k.historyRequest(m)
		case "comm_info_request":
			k.reply(k.shell, m, "comm_info_reply", map[string]any{"status": "ok", "comms": map[string]any{}})
		case "comm_open":
			k.commOpen(m)
		case "comm_msg", "comm_close":
			k.log.Info("comm message ignored: this kernel has no comm targets", "msg_type", m.Header.MsgType, "msg_id", m.Header.MsgID)
		case "connect_request":
			k.reply(k.shell, m, "connect_reply", map[string]any{"status": "ok",
				"shell_port": k.conn.ShellPort, "iopub_port": k.conn.IOPubPort, "stdin_port": k.conn.StdinPort,
				"control_port": k.conn.ControlPort, "hb_port": k.conn.HBPort})
		default:
			k.unknown(k.shell, m)
		}
	})
	k.abortQueued(ctx, abort)
}

// abortQueued takes the next n requests of the queue, those that were
// waiting when a cell failed with stop_on_error (before its error reply
// went out), and answers each execute_request among them with status
// "aborted"; the other requests are served as usual. A request that came
// after the error reply is not among them: a front end that got that reply,
// or the reply to one of the n (kernel_info, say), may send a new request
// at once, and that one must run.
func (k *Kernel) abortQueued(ctx context.Context, n int) {
	for range n {
		m := <-k.queue
		if m.Header.MsgType != "execute_request" {
			k.dispatchShell(ctx, m)
			continue
		}
		k.log.Info("execute aborted after an error", "msg_id", m.Header.MsgID)
		k.busy(m, func() {
			k.reply(k.shell, m, "execute_reply", map[string]any{"status": "aborted"})
		})
	}
}

// unknown logs a message type the kernel does not serve. Per the protocol
// it sends no reply: a front end must not wait for one to an unknown request.
func (k *Kernel) unknown(ch *channel, m *Message) {
	k.log.Warn("unknown message type, ignored", "channel", ch.name, "msg_type", m.Header.MsgType, "msg_id", m.Header.MsgID)
}

// busy publishes status busy, runs f, and publishes idle, both with m as
// parent, as the protocol wants around every request.
func (k *Kernel) busy(m *Message, f func()) {
	k.publish(m, "status", map[string]any{"execution_state": "busy"})
	k.guard(m, f)
	k.publish(m, "status", map[string]any{"execution_state": "idle"})
}

// guard runs f and returns nil, or the value of its panic, which it logs
// with the stack: a panic in a handler or the interpreter is a bug that
// must cost one request, not the kernel.
func (k *Kernel) guard(m *Message, f func()) (panicked any) {
	defer func() {
		if r := recover(); r != nil {
			panicked = r
			k.log.Error("panic while handling a message", "msg_type", m.Header.MsgType, "msg_id", m.Header.MsgID,
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		}
	}()
	f()
	return nil
}

// send signs and sends one message on ch; failures are logged, since the
// front end that would hear of them is the one we cannot reach.
func (k *Kernel) send(ch *channel, ids [][]byte, msgType string, parent *Message, content any) {
	var rawParent json.RawMessage
	if parent != nil {
		rawParent = parent.RawHeader
	}
	h := NewHeader(msgType, k.session)
	frames, err := k.signer.Encode(ids, h, rawParent, nil, content, nil)
	if err != nil {
		k.log.Error("encode failed", "channel", ch.name, "msg_type", msgType, "err", err)
		return
	}
	if err := k.sendFrames(ch, frames, h); err != nil {
		k.log.Warn("send failed", "channel", ch.name, "msg_type", msgType, "msg_id", h.MsgID, "err", err)
	}
}

// sendFrames sends an encoded message whose header is h.
func (k *Kernel) sendFrames(ch *channel, frames [][]byte, h Header) error {
	ch.mu.Lock()
	err := ch.sock.SendMulti(zmq4.NewMsgFrom(frames...))
	ch.mu.Unlock()
	if err != nil && k.sockCtx.Err() != nil {
		return fmt.Errorf("%s socket closed", ch.name)
	}
	if err == nil && ch != k.iopub {
		k.log.Debug("sent", "channel", ch.name, "msg_type", h.MsgType, "msg_id", h.MsgID)
	}
	return err
}

// reply answers request m on ch, routed back to its sender.
func (k *Kernel) reply(ch *channel, m *Message, msgType string, content any) {
	k.send(ch, m.Identities, msgType, m, content)
}

// publish broadcasts on iopub with parent as parent header (nil for none).
func (k *Kernel) publish(parent *Message, msgType string, content any) {
	topic := []byte("kernel." + k.session + "." + msgType)
	k.send(k.iopub, [][]byte{topic}, msgType, parent, content)
}

func (k *Kernel) kernelInfo() map[string]any {
	version := k.opts.Version
	if version == "" {
		version = "devel"
	}
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       ProtocolVersion,
		"implementation":         "pathnotes",
		"implementation_version": version,
		"language_info": map[string]any{
			"name":            "go",
			"version":         runtime.Version(),
			"mimetype":        "text/x-go",
			"file_extension":  ".go",
			"pygments_lexer":  "go",
			"codemirror_mode": "go",
		},
		"banner": fmt.Sprintf("pathnotes %s: Go cells (%s, yaegi interpreter) for shortest paths on CPUs and GPUs.\n"+
			"%%help lists the magics.", version, runtime.Version()),
		"help_links": []map[string]string{
			{"text": "Go documentation", "url": "https://go.dev/doc/"},
			{"text": "Go language specification", "url": "https://go.dev/ref/spec"},
			{"text": "yaegi interpreter", "url": "https://github.com/traefik/yaegi"},
		},
		"debugger": false,
	}
}

// shutdown answers a shutdown_request; dispatchControl then stops Run. With
// restart true the front end starts a new process, so this one exits either
// way, as the protocol says.
func (k *Kernel) shutdown(ch *channel, m *Message) {
	var req struct {
		Restart bool `json:"restart"`
	}
	if err := m.DecodeContent(&req); err != nil {
		k.log.Warn("shutdown_request content", "msg_id", m.Header.MsgID, "err", err)
	}
	k.log.Info("shutdown requested", "restart", req.Restart, "msg_id", m.Header.MsgID)
	k.Interrupt()
	content := map[string]any{"status": "ok", "restart": req.Restart}
	k.reply(ch, m, "shutdown_reply", content)
	k.publish(m, "shutdown_reply", content)
}

// commOpen refuses a comm: the kernel has no comm targets, and the protocol
// asks for an immediate comm_close so that the front end does not keep a
// half-open comm.
func (k *Kernel) commOpen(m *Message) {
	var req struct {
		CommID     string `json:"comm_id"`
		TargetName string `json:"target_name"`
	}
	if err := m.DecodeContent(&req); err != nil {
		k.log.Warn("comm_open content", "msg_id", m.Header.MsgID, "err", err)
		return
	}
	k.log.Info("comm_open refused: no such target", "target_name", req.TargetName, "comm_id", req.CommID, "msg_id", m.Header.MsgID)
	k.publish(m, "comm_close", map[string]any{"comm_id": req.CommID, "data": map[string]any{}})
}

// processOutput receives the text of the captured standard output and
// error: it belongs to the cell running now or, between cells, to the last
// one (its goroutines may still print); before the first cell it is logged.
func (k *Kernel) processOutput(name, text string) {
	if out := k.lastOut.Load(); out != nil {
		out.Stream(name, text)
		return
	}
	k.log.Info("process output before the first cell", "stream", name, "text", text)
}
