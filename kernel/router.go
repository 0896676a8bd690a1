package kernel

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
	"github.com/go-zeromq/zmq4/transport"
)

// routerSocket is the kernel's ROUTER socket (shell, control and stdin).
// zmq4's writes each message from a goroutine it starts for it, under a
// fresh context and timer, while the sender waits for that goroutine; a
// reply went out two goroutine hand-offs after the handler had it. Here the
// goroutine that sends a message writes it, one write call (boundedConn
// gathers its frames). As with zmq4's, a message goes to every peer whose
// identity its first frame names, and to nobody when none does.
type routerSocket struct {
	ctx     context.Context
	cancel  context.CancelFunc
	log     *slog.Logger
	name    string
	timeout time.Duration // how long a write may block
	ln      net.Listener
	in      chan zmq4.Msg // received messages, the peer's identity first

	mu     sync.Mutex
	peers  []*routerPeer
	closed bool
}

// routerPeer is one connection to a router socket.
type routerPeer struct {
	id   string
	raw  *boundedConn
	conn *zmq4.Conn
	mu   sync.Mutex // one message written at a time
}

// routerQueue is how many received messages wait for Recv, as in zmq4.
const routerQueue = 10

// newRouter returns a router socket named name (for the log), whose writes
// fail after timeout, and which ends with ctx or Close.
func newRouter(ctx context.Context, log *slog.Logger, name string, timeout time.Duration) *routerSocket {
	ctx, cancel := context.WithCancel(ctx)
	return &routerSocket{ctx: ctx, cancel: cancel, log: log, name: name, timeout: timeout,
		in: make(chan zmq4.Msg, routerQueue)}
}

// Listen listens on endpoint, of one of the kernel's bounded transports, and
// accepts peers.
func (r *routerSocket) Listen(endpoint string) error {
	scheme, addr, _ := strings.Cut(endpoint, "://")
	network, ok := boundedNetworks[scheme]
	if !ok {
		return fmt.Errorf("%s: endpoint %q is not of a bounded transport", r.name, endpoint)
	}
	ln, err := boundedTransport{transport.New(network)}.Listen(r.ctx, addr)
	if err != nil {
		return fmt.Errorf("%s: %w", r.name, err)
	}
	r.ln = ln
	go r.accept()
	return nil
}

// Addr returns the address the socket listens on.
func (r *routerSocket) Addr() net.Addr { return r.ln.Addr() }

// accept takes peers until the listener closes. Each handshake runs on its
// own goroutine, so that a silent peer delays no other.
func (r *routerSocket) accept() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			if r.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			r.log.Warn("accept", "socket", r.name, "err", err)
			continue
		}
		go r.open(c.(*boundedConn))
	}
}

// open makes the ZMTP handshake with a new peer and reads its messages.
func (r *routerSocket) open(c *boundedConn) {
	conn, err := zmq4.Open(c, null.Security(), zmq4.Router, nil, true, nil)
	if err != nil {
		r.log.Warn("no ZMTP connection", "socket", r.name, "peer", c.RemoteAddr().String(), "err", err)
		c.Close()
		return
	}
	id := conn.Peer.Meta["Identity"]
	if id == "" {
		id = rand.Text() // a peer that names no identity gets one, as in zmq4
	}
	p := &routerPeer{id: id, raw: c, conn: conn}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		conn.Close()
		return
	}
	r.peers = append(r.peers, p)
	r.mu.Unlock()
	r.read(p)
}

// read passes the peer's messages to Recv until its connection ends, then
// drops it.
func (r *routerSocket) read(p *routerPeer) {
	defer r.drop(p)
	for {
		msg, err := p.conn.RecvMsg()
		if err != nil {
			return
		}
		if msg.Type == zmq4.CmdMsg {
			continue // RecvMsg has answered a ping
		}
		msg.Frames = append([][]byte{[]byte(p.id)}, msg.Frames...)
		select {
		case r.in <- msg:
		case <-r.ctx.Done():
			return
		}
	}
}

// drop forgets the peer and closes its connection.
func (r *routerSocket) drop(p *routerPeer) {
	r.mu.Lock()
	for i, q := range r.peers {
		if q == p {
			r.peers = append(r.peers[:i], r.peers[i+1:]...)
			break
		}
	}
	r.mu.Unlock()
	p.conn.Close()
}

// Recv returns the next message, its first frame the identity of the peer
// that sent it.
func (r *routerSocket) Recv() (zmq4.Msg, error) {
	select {
	case msg := <-r.in:
		return msg, nil
	case <-r.ctx.Done():
		return zmq4.Msg{}, fmt.Errorf("%s: socket closed", r.name)
	}
}

// SendMulti writes msg, less its first frame, to the peers whose identity
// that frame is. A peer whose write fails or takes longer than the timeout
// is closed: a partly written message leaves nothing else to do.
func (r *routerSocket) SendMulti(msg zmq4.Msg) error {
	if len(msg.Frames) == 0 {
		return fmt.Errorf("%s: a message without frames", r.name)
	}
	id := string(msg.Frames[0])
	out := zmq4.NewMsgFrom(msg.Frames[1:]...)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return fmt.Errorf("%s: socket closed", r.name)
	}
	var to []*routerPeer
	for _, p := range r.peers {
		if p.id == id {
			to = append(to, p)
		}
	}
	r.mu.Unlock()
	var first error
	for _, p := range to {
		p.mu.Lock()
		p.raw.SetWriteDeadline(time.Now().Add(r.timeout))
		err := p.conn.SendMsg(out)
		p.mu.Unlock()
		if err != nil {
			p.conn.Close() // read returns and drops the peer
			if first == nil {
				first = err
			}
		}
	}
	return first
}

// Close stops the socket and closes the peers' connections.
func (r *routerSocket) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	peers := r.peers
	r.peers = nil
	r.mu.Unlock()
	r.cancel()
	var err error
	if r.ln != nil {
		err = r.ln.Close()
	}
	for _, p := range peers {
		p.conn.Close()
	}
	return err
}
