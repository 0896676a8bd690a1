package kernel

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
	"github.com/go-zeromq/zmq4/transport"
)

// listener is what the kernel's own sockets (routerSocket, iopubSocket)
// share: a listener on one of the bounded transports whose connections
// make the ZMTP handshake as socket type typ, each on a goroutine of its
// own so that a silent peer delays no other, and then go to serve.
type listener struct {
	ctx    context.Context
	cancel context.CancelFunc
	log    *slog.Logger
	name   string // the socket's name, for errors and the log
	typ    zmq4.SocketType
	serve  func(c *boundedConn, conn *zmq4.Conn) // runs on the connection's goroutine
	ln     net.Listener
}

// newListener returns a listener named name that ends with ctx or stop;
// its owner sets serve before Listen.
func newListener(ctx context.Context, log *slog.Logger, name string, typ zmq4.SocketType) listener {
	ctx, cancel := context.WithCancel(ctx)
	return listener{ctx: ctx, cancel: cancel, log: log, name: name, typ: typ}
}

// Listen listens on endpoint, of one of the kernel's bounded transports, and
// accepts peers.
func (l *listener) Listen(endpoint string) error {
	scheme, addr, _ := strings.Cut(endpoint, "://")
	network, ok := boundedNetworks[scheme]
	if !ok {
		return fmt.Errorf("%s: endpoint %q is not of a bounded transport", l.name, endpoint)
	}
	ln, err := boundedTransport{transport.New(network)}.Listen(l.ctx, addr)
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
		c, err := l.ln.Accept()
		if err != nil {
			if l.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			l.log.Warn("accept", "socket", l.name, "err", err)
			continue
		}
		go l.open(c.(*boundedConn))
	}
}

// open makes the ZMTP handshake with a new peer and serves it.
func (l *listener) open(c *boundedConn) {
	conn, err := zmq4.Open(c, null.Security(), l.typ, nil, true, nil)
	if err != nil {
		l.log.Warn("no ZMTP connection", "socket", l.name, "peer", c.RemoteAddr().String(), "err", err)
		c.Close()
		return
	}
	l.serve(c, conn)
}

// stop ends the socket's context and closes the listener.
func (l *listener) stop() error {
	l.cancel()
	if l.ln == nil {
		return nil
	}
	return l.ln.Close()
}
