package kernel

import (
	"context"
	"log/slog"
	"time"

	"github.com/go-zeromq/zmq4"
)

// hbSocket is the kernel's heartbeat: a REP socket of its own that echoes
// every message back to the connection it came from. zmq4's REP socket
// greeted its peers one at a time on its accept loop, so that a peer that
// connected and stayed silent kept every new heartbeat client waiting for
// the handshake timeout; here each connection is served on its own
// goroutine, from its handshake on.
type hbSocket struct {
	listener
}

// newHeartbeat returns a heartbeat socket with the bounds of limits, which
// ends with ctx or Close.
func newHeartbeat(ctx context.Context, log *slog.Logger, limits wireLimits) *hbSocket {
	h := &hbSocket{listener: newListener(ctx, log, "hb", zmq4.Rep, limits)}
	h.serve = h.echo
	return h
}

// echo sends each message of the peer back to it, as it came (the
// envelope of a REQ peer included), until the connection ends.
func (h *hbSocket) echo(c *boundedConn, conn *zmq4.Conn) {
	defer conn.Close()
	for {
		msg, err := c.readMsg()
		if err != nil {
			return
		}
		c.SetWriteDeadline(time.Now().Add(sendTimeout))
		if err := conn.SendMsg(msg); err != nil {
			return
		}
		c.settle(standingAccepted)
	}
}

// Close stops the socket and closes its connections.
func (h *hbSocket) Close() error {
	err := h.stop()
	h.closeConns()
	return err
}
