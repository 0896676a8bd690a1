package kernel

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
)

// listener is what the kernel's sockets (routerSocket, iopubSocket,
// hbSocket) share: a listener on a TCP or unix socket whose connections
// make the ZMTP handshake as socket type typ, each on a goroutine of its
// own so that a silent peer delays no other, and then go to serve. It
// keeps at most limits.maxConns connections: a new one past the cap
// evicts the one of lowest standing (see standing).
type listener struct {
	ctx    context.Context
	cancel context.CancelFunc
	log    *slog.Logger
	name   string // the socket's name, for errors and the log
	typ    zmq4.SocketType
	limits wireLimits
	serve  func(c *boundedConn, conn *zmq4.Conn) // runs on the connection's goroutine until it ends
	ln     net.Listener

	connMu sync.Mutex
	conns  map[*boundedConn]bool
}

// standing is how a port's cap ranks its connections when it must evict
// one: the lowest standing goes first and, among equals, the one that has
// held its standing longest. A connection takes its standing from the
// last message it sent.
type standing int32

const (
	standingBusy     standing = iota // in its handshake, or the kernel waits for the rest of a message
	standingRefused                  // its last message was refused: no good signature, not a subscription
	standingNew                      // it has sent nothing since its handshake
	standingAccepted                 // its last message was one its port takes unsigned: a ping, a subscription
	standingVerified                 // it has sent a message with a good signature: never evicted
)

func (s standing) String() string {
	switch s {
	case standingBusy:
		return "busy"
	case standingRefused:
		return "refused"
	case standingNew:
		return "new"
	case standingAccepted:
		return "accepted"
	}
	return "verified"
}

// stand gives the connection standing s, from now.
func (c *boundedConn) stand(s standing) {
	c.standing.Store(int32(s))
	c.since.Store(time.Now().UnixNano())
}

// newListener returns a listener named name, with limits, that ends with
// ctx or stop; its owner sets serve before Listen.
func newListener(ctx context.Context, log *slog.Logger, name string, typ zmq4.SocketType, limits wireLimits) listener {
	ctx, cancel := context.WithCancel(ctx)
	return listener{ctx: ctx, cancel: cancel, log: log, name: name, typ: typ, limits: limits,
		conns: map[*boundedConn]bool{}}
}

// Listen listens on endpoint, of one of the kernel's bounded schemes, and
// accepts peers.
func (l *listener) Listen(endpoint string) error {
	scheme, addr, _ := strings.Cut(endpoint, "://")
	network, ok := boundedNetworks[scheme]
	if !ok {
		return fmt.Errorf("%s: endpoint %q is not of a bounded scheme", l.name, endpoint)
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		return fmt.Errorf("%s: %w", l.name, err)
	}
	l.ln = ln
	go l.accept()
	return nil
}

// Addr returns the address the socket listens on.
func (l *listener) Addr() net.Addr { return l.ln.Addr() }

// accept takes peers until the listener closes.
func (l *listener) accept() {
	for {
		nc, err := l.ln.Accept()
		if err != nil {
			if l.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			l.log.Warn("accept", "socket", l.name, "err", err)
			continue
		}
		c := newBoundedConn(nc, l.limits, l.name)
		if l.admit(c) {
			go l.open(c)
		}
	}
}

// admit adds c to the port's connections, evicting one if the port is at
// its cap; it closes c and reports false when every connection has
// verified.
func (l *listener) admit(c *boundedConn) bool {
	l.connMu.Lock()
	defer l.connMu.Unlock()
	if l.ctx.Err() != nil {
		c.Close()
		return false
	}
	if len(l.conns) >= l.limits.maxConns {
		victim := l.victim()
		if victim == nil {
			l.log.Warn("connection refused: every connection of the port has sent a signed message",
				"port", l.name, "peer", c.RemoteAddr().String(), "connections", len(l.conns))
			c.Close()
			return false
		}
		delete(l.conns, victim)
		l.log.Warn("connection evicted: the port is at its cap", "port", l.name,
			"peer", victim.RemoteAddr().String(), "standing", standing(victim.standing.Load()),
			"for", time.Since(time.Unix(0, victim.since.Load())).Round(time.Millisecond), "cap", l.limits.maxConns)
		victim.Close() // its goroutine finds the connection closed, and ends
	}
	l.conns[c] = true
	return true
}

// victim returns the connection to evict: the lowest standing, the
// longest held; nil when all have verified. It is called with connMu held.
func (l *listener) victim() *boundedConn {
	var v *boundedConn
	var vs standing
	var vsince int64
	for c := range l.conns {
		s, since := standing(c.standing.Load()), c.since.Load()
		if s == standingVerified {
			continue
		}
		if v == nil || s < vs || s == vs && since < vsince {
			v, vs, vsince = c, s, since
		}
	}
	return v
}

// forget drops c from the port's connections.
func (l *listener) forget(c *boundedConn) {
	l.connMu.Lock()
	delete(l.conns, c)
	l.connMu.Unlock()
}

// open makes the ZMTP handshake with a new peer and serves it. What the
// connection's last message drew on the budget goes back when it ends,
// however its socket left it.
func (l *listener) open(c *boundedConn) {
	defer l.forget(c)
	defer c.release()
	conn, err := zmq4.Open(c, null.Security(), l.typ, nil, true, nil)
	if err != nil {
		if !errors.Is(err, net.ErrClosed) {
			l.log.Warn("no ZMTP connection", "socket", l.name, "peer", c.RemoteAddr().String(), "err", err)
		}
		c.Close()
		return
	}
	c.stand(standingNew)
	l.serve(c, conn)
}

// stop ends the socket's context and closes the listener; the
// connections stay open for their socket to close (see closeConns).
func (l *listener) stop() error {
	l.cancel()
	if l.ln == nil {
		return nil
	}
	return l.ln.Close()
}

// closeConns closes every connection of the port, those still in their
// handshake too.
func (l *listener) closeConns() {
	l.connMu.Lock()
	defer l.connMu.Unlock()
	for c := range l.conns {
		c.Close()
	}
}
