package kernel

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
)

// routerSocket is the kernel's ROUTER socket (shell, control and stdin).
// zmq4's writes each message from a goroutine it starts for it, under a
// fresh context and timer, while the sender waits for that goroutine; a
// reply went out two goroutine hand-offs after the handler had it. Here the
// goroutine that sends a message writes it, one write call (boundedConn
// gathers its frames), and the goroutine that reads a peer's message hands
// it to the socket's handler itself. As with zmq4's, a message goes to
// every peer whose identity its first frame names, and to nobody when none
// does.
type routerSocket struct {
	listener
	timeout time.Duration           // how long a write may block
	handle  func(zmq4.Msg) standing // takes each message, the peer's identity first, and judges it

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

// newRouter returns a router socket named name (for the log), with the
// bounds of limits, whose writes fail after timeout, and which ends with
// ctx or Close. handle takes each message received, its first frame the
// identity of the peer that sent it, and returns standingVerified when
// the message's signature checked, standingRefused otherwise; it runs on
// that peer's goroutine, so a peer's messages are handled one at a time
// and in order, and those of two peers may be handled at once. While it
// runs, nothing more is read from that peer.
func newRouter(ctx context.Context, log *slog.Logger, name string, limits wireLimits, timeout time.Duration,
	handle func(zmq4.Msg) standing) *routerSocket {
	r := &routerSocket{listener: newListener(ctx, log, name, zmq4.Router, limits), timeout: timeout, handle: handle}
	r.serve = r.open
	return r
}

// open adds a peer that made its handshake and reads its messages.
func (r *routerSocket) open(c *boundedConn, conn *zmq4.Conn) {
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

// read hands the peer's messages to the handler until its connection ends
// or the socket stops, then drops the peer.
func (r *routerSocket) read(p *routerPeer) {
	defer r.drop(p)
	for {
		msg, err := p.raw.readMsg()
		if err != nil || r.ctx.Err() != nil {
			return
		}
		msg.Frames = append([][]byte{[]byte(p.id)}, msg.Frames...)
		p.raw.settle(r.handle(msg))
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
	err := r.stop()
	for _, p := range peers {
		p.conn.Close()
	}
	r.closeConns()
	return err
}
