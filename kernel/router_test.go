package kernel

import (
	"context"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
)

// TestRouterRoutesByIdentity checks that the router socket tags each
// message with its sender's identity, sends a reply to that sender only,
// drops a message for an identity no peer has, and closes a peer that
// stops reading once a write to it times out, without holding up the
// others.
func TestRouterRoutesByIdentity(t *testing.T) {
	got := make(chan zmq4.Msg, 1)
	r := newRouter(context.Background(), slog.New(slog.DiscardHandler), "shell", testLimits(t), 200*time.Millisecond,
		func(m zmq4.Msg) standing { got <- m; return standingAccepted })
	if err := r.Listen(boundedTCP + "://127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := zmq4.NewDealer(ctx, zmq4.WithID(zmq4.SocketIdentity("a")))
	b := zmq4.NewDealer(ctx, zmq4.WithID(zmq4.SocketIdentity("b")))
	defer a.Close()
	defer b.Close()
	for name, d := range map[string]zmq4.Socket{"a": a, "b": b} {
		if err := d.Dial("tcp://" + r.Addr().String()); err != nil {
			t.Fatal(err)
		}
		if err := d.Send(zmq4.NewMsgString("from " + name)); err != nil {
			t.Fatal(err)
		}
		m := <-got
		if len(m.Frames) != 2 || string(m.Frames[0]) != name || string(m.Frames[1]) != "from "+name {
			t.Fatalf("received %q, want [%s, from %s]", m.Frames, name, name)
		}
	}
	if err := r.SendMulti(zmq4.NewMsgFrom([]byte("nobody"), []byte("lost"))); err != nil {
		t.Fatalf("a message for no peer: %v", err)
	}
	for _, name := range []string{"b", "a"} {
		if err := r.SendMulti(zmq4.NewMsgFrom([]byte(name), []byte("to "+name))); err != nil {
			t.Fatal(err)
		}
	}
	for name, d := range map[string]zmq4.Socket{"a": a, "b": b} {
		m, err := d.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Frames) != 1 || string(m.Frames[0]) != "to "+name {
			t.Fatalf("%s received %q", name, m.Frames)
		}
	}

	// A raw peer that makes the handshake and then reads nothing.
	c, err := net.Dial("tcp", r.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := zmq4.Open(c, null.Security(), zmq4.Dealer, zmq4.SocketIdentity("mute"), false, nil); err != nil {
		t.Fatal(err)
	}
	waitPeers(t, r, 3)
	big := make([]byte, 1<<20)
	start := time.Now()
	for err == nil && time.Since(start) < waitFor {
		err = r.SendMulti(zmq4.NewMsgFrom([]byte("mute"), big))
	}
	if err == nil {
		t.Fatal("writes to a peer that reads nothing never failed")
	}
	waitPeers(t, r, 2)
	if err := r.SendMulti(zmq4.NewMsgFrom([]byte("a"), []byte("still here"))); err != nil {
		t.Fatal(err)
	}
	if m, err := a.Recv(); err != nil || string(m.Frames[0]) != "still here" {
		t.Fatalf("after the mute peer: %q, %v", m.Frames, err)
	}
}

// testLimits returns the default bounds, for a socket made without a
// kernel.
func testLimits(t *testing.T) wireLimits {
	l, err := newWireLimits(Options{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// waitPeers waits until the router has n peers.
func waitPeers(t *testing.T, r *routerSocket, n int) {
	for deadline := time.Now().Add(waitFor); ; time.Sleep(5 * time.Millisecond) {
		r.mu.Lock()
		got := len(r.peers)
		r.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d peers, want %d", got, n)
		}
	}
}
