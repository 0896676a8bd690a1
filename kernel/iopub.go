package kernel

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
)

// port is what the kernel does with each of its five sockets.
type port interface {
	Listen(endpoint string) error
	Addr() net.Addr
	Close() error
}

// socket is a port that the kernel sends messages on: routerSocket and
// iopubSocket.
type socket interface {
	port
	SendMulti(zmq4.Msg) error
}

// iopubSocket is the kernel's PUB socket. zmq4's sends every message from
// one goroutine that writes to the subscribers in turn, so that a front end
// that stops reading holds up the others (each message, for the send
// timeout), and its queue allocates 8 KiB each time it runs empty, that is
// for nearly every message. Here each subscriber has a queue and a writer
// of its own, and the messages a writer finds waiting go out in one write.
// A queue is bounded (maxQueued bytes): a subscriber that falls that far
// behind loses messages, as the subscribers of a PUB socket do.
type iopubSocket struct {
	listener

	mu      sync.Mutex
	subs    map[*subscriber]bool
	closed  bool
	closing chan struct{} // closed by Close after closed is set: nothing is queued after it
}

// maxQueued bounds the bytes waiting for one subscriber.
const maxQueued = 64 << 20

// A subscriber holds at most maxSubscriptions topic prefixes of at most
// maxTopic bytes (a Jupyter front end subscribes to "", every topic);
// each message published is checked against every prefix.
const (
	maxSubscriptions = 64
	maxTopic         = 1 << 10
)

// subscriber is one connection to the iopub socket.
type subscriber struct {
	s    *iopubSocket
	raw  *boundedConn // what conn writes to
	conn *zmq4.Conn

	mu       sync.Mutex
	prefixes map[string]bool // the topics subscribed to: prefixes, "" for all
	queue    []zmq4.Msg
	queued   int  // bytes in queue
	dropping bool // messages are being dropped (logged once per stretch)
	wake     chan struct{}
	done     chan struct{} // closed when the subscriber is dropped
	drained  chan struct{} // closed by the writer when the socket closes and the queue is sent
}

// closeFlush bounds how long Close waits for the subscribers' writers to
// send what their queues hold (the status idle of a shutdown_request, say).
const closeFlush = time.Second

// newIOPub returns an iopub socket with the bounds of limits, which ends
// with ctx or Close.
func newIOPub(ctx context.Context, log *slog.Logger, limits wireLimits) *iopubSocket {
	p := &iopubSocket{listener: newListener(ctx, log, "iopub", zmq4.Pub, limits), subs: map[*subscriber]bool{},
		closing: make(chan struct{})}
	p.serve = p.open
	return p
}

// open adds a subscriber that made its handshake and serves it.
func (p *iopubSocket) open(c *boundedConn, conn *zmq4.Conn) {
	sub := &subscriber{s: p, raw: c, conn: conn, prefixes: map[string]bool{},
		wake: make(chan struct{}, 1), done: make(chan struct{}), drained: make(chan struct{})}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		conn.Close()
		return
	}
	p.subs[sub] = true
	p.mu.Unlock()
	go sub.write()
	sub.read()
}

// read follows the subscriber's subscriptions until its connection ends,
// then drops it.
func (sub *subscriber) read() {
	defer sub.drop()
	for {
		msg, err := sub.raw.readMsg()
		if err != nil {
			return
		}
		if len(msg.Frames) != 1 || len(msg.Frames[0]) == 0 || msg.Frames[0][0] > 1 || len(msg.Frames[0]) > maxTopic+1 {
			sub.raw.settle(standingRefused) // a PUB socket ignores what is not a subscription
			continue
		}
		f := msg.Frames[0]
		verdict := standingAccepted
		sub.mu.Lock()
		switch {
		case f[0] == 0:
			delete(sub.prefixes, string(f[1:]))
		case len(sub.prefixes) < maxSubscriptions:
			sub.prefixes[string(f[1:])] = true
		default:
			verdict = standingRefused
		}
		sub.mu.Unlock()
		sub.raw.settle(verdict)
	}
}

// drop forgets the subscriber and closes its connection.
func (sub *subscriber) drop() {
	p := sub.s
	p.mu.Lock()
	delete(p.subs, sub)
	p.mu.Unlock()
	close(sub.done)
	sub.conn.Close()
}

// write sends what the subscriber's queue holds until its connection ends,
// or until the socket closes and the queue is sent.
func (sub *subscriber) write() {
	for {
		select {
		case <-sub.wake:
		case <-sub.done:
			return
		}
		closing := false
		select {
		case <-sub.s.closing:
			closing = true
		default:
		}
		sub.mu.Lock()
		batch := sub.queue
		sub.queue, sub.queued = nil, 0
		sub.mu.Unlock()
		if len(batch) == 0 {
			if closing {
				close(sub.drained)
				return
			}
			continue
		}
		if err := sub.raw.gathered(func() error {
			for _, m := range batch {
				if err := sub.conn.SendMsg(m); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			sub.conn.Close() // read returns and drops the subscriber
			return
		}
		if closing {
			close(sub.drained)
			return
		}
	}
}

// SendMulti publishes a message whose first frame is its topic to the
// subscribers of a prefix of that topic.
func (p *iopubSocket) SendMulti(msg zmq4.Msg) error {
	if len(msg.Frames) == 0 {
		return errors.New("iopub: a message without frames")
	}
	topic := string(msg.Frames[0])
	size := 0
	for _, f := range msg.Frames {
		size += len(f)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("iopub: socket closed")
	}
	for sub := range p.subs {
		sub.enqueue(msg, topic, size)
	}
	return nil
}

// enqueue queues msg for the subscriber if it subscribed to its topic.
func (sub *subscriber) enqueue(msg zmq4.Msg, topic string, size int) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if !sub.subscribed(topic) {
		return
	}
	if sub.queued+size > maxQueued {
		if !sub.dropping {
			sub.s.log.Warn("iopub: a subscriber does not keep up; its messages are dropped",
				"peer", sub.raw.RemoteAddr().String(), "queued_bytes", sub.queued)
		}
		sub.dropping = true
		return
	}
	sub.dropping = false
	sub.queue = append(sub.queue, msg)
	sub.queued += size
	sub.wakeWriter()
}

// wakeWriter has the subscriber's writer send its queue.
func (sub *subscriber) wakeWriter() {
	select {
	case sub.wake <- struct{}{}:
	default:
	}
}

// subscribed reports whether topic has a prefix the subscriber subscribed
// to. It is called with sub.mu held.
func (sub *subscriber) subscribed(topic string) bool {
	for prefix := range sub.prefixes {
		if strings.HasPrefix(topic, prefix) {
			return true
		}
	}
	return false
}

// Close stops the socket, lets the subscribers' writers send what their
// queues hold (for closeFlush at most: a subscriber that stopped reading
// does not hold up the close), and closes the subscribers' connections.
func (p *iopubSocket) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.closing)
	subs := p.subs
	p.subs = map[*subscriber]bool{}
	p.mu.Unlock()
	err := p.stop()
	for sub := range subs {
		sub.wakeWriter()
	}
	deadline := time.After(closeFlush)
	for sub := range subs {
		select {
		case <-sub.drained:
		case <-sub.done:
		case <-deadline:
		}
		sub.conn.Close()
	}
	p.closeConns()
	return err
}
