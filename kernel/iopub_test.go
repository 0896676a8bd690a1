package kernel

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
)

// startIOPub returns an iopub socket listening on a port of 127.0.0.1 and
// its TCP address.
func startIOPub(t *testing.T) (*iopubSocket, string) {
	p := newIOPub(context.Background(), slog.New(slog.DiscardHandler), testLimits(t))
	if err := p.Listen(boundedTCP + "://127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, p.Addr().String()
}

// waitSubscribed waits until the socket has n subscribers, each with a
// subscription.
func waitSubscribed(t *testing.T, p *iopubSocket, n int) {
	for deadline := time.Now().Add(waitFor); ; time.Sleep(5 * time.Millisecond) {
		p.mu.Lock()
		ready := 0
		for sub := range p.subs {
			sub.mu.Lock()
			if len(sub.prefixes) > 0 {
				ready++
			}
			sub.mu.Unlock()
		}
		p.mu.Unlock()
		if ready == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d subscribers of %d ready", ready, n)
		}
	}
}

// TestIOPubSubscriberThatStopsReading checks that a subscriber that reads
// nothing holds up neither the publisher nor the other subscribers, which
// get every message of the topics they subscribed to, and only those, nor
// the socket's Close for more than closeFlush.
func TestIOPubSubscriberThatStopsReading(t *testing.T) {
	p, addr := startIOPub(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	all, some := zmq4.NewSub(ctx), zmq4.NewSub(ctx)
	defer all.Close()
	defer some.Close()
	for sub, topic := range map[zmq4.Socket]string{all: "", some: "kernel.a"} {
		if err := sub.Dial("tcp://" + addr); err != nil {
			t.Fatal(err)
		}
		if err := sub.SetOption(zmq4.OptionSubscribe, topic); err != nil {
			t.Fatal(err)
		}
	}
	// The stuck subscriber subscribes, then never reads.
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	stuck, err := zmq4.Open(raw, null.Security(), zmq4.Sub, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := stuck.SendMsg(zmq4.NewMsg([]byte{1})); err != nil {
		t.Fatal(err)
	}
	waitSubscribed(t, p, 3)

	// 64 messages of 256 KiB, far more than the stuck one's socket buffers.
	const n = 64
	body := bytes.Repeat([]byte{'x'}, 256<<10)
	start := time.Now()
	for i := range n {
		topic := "kernel.b"
		if i%2 == 0 {
			topic = "kernel.a"
		}
		if err := p.SendMulti(zmq4.NewMsgFrom([]byte(topic), []byte(fmt.Sprint(i)), body)); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("publishing took %v: held up by a subscriber", d)
	}
	receive := func(sub zmq4.Socket, want []string) error {
		for _, w := range want {
			msg, err := sub.Recv()
			if err != nil {
				return fmt.Errorf("after %d messages: %v", len(want), err)
			}
			if got := string(msg.Frames[0]) + "/" + string(msg.Frames[1]); got != w || !bytes.Equal(msg.Frames[2], body) {
				return fmt.Errorf("got message %s, want %s", got, w)
			}
		}
		return nil
	}
	var wantAll, wantSome []string
	for i := range n {
		if i%2 == 0 {
			wantAll = append(wantAll, fmt.Sprintf("kernel.a/%d", i))
			wantSome = append(wantSome, fmt.Sprintf("kernel.a/%d", i))
		} else {
			wantAll = append(wantAll, fmt.Sprintf("kernel.b/%d", i))
		}
	}
	done := make(chan error, 1)
	go func() {
		err := receive(all, wantAll)
		if err == nil {
			err = receive(some, wantSome)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitFor):
		t.Fatal("the reading subscribers did not get their messages")
	}
	// Close waits for the writers to send their queues, but not for long
	// on the one that reads nothing.
	start = time.Now()
	p.Close()
	if d := time.Since(start); d > closeFlush+time.Second {
		t.Errorf("Close took %v with a subscriber that reads nothing", d)
	}
}

// TestIOPubBoundsSubscriptions sends a subscriber's 70 subscriptions, one
// of them over 1 KiB: it keeps the first 64 of those within the bound.
func TestIOPubBoundsSubscriptions(t *testing.T) {
	p, _ := startIOPub(t)
	port := p.Addr().(*net.TCPAddr).Port
	var subs [][]byte
	subs = append(subs, rawMsg(append([]byte{1}, bytes.Repeat([]byte("x"), maxTopic+1)...)))
	for i := range 69 {
		subs = append(subs, rawMsg([]byte(fmt.Sprintf("\x01topic %d", i))))
	}
	conn := handshaken(t, port, "SUB", subs...)
	defer conn.Close()
	waitSubscribed(t, p, 1)
	for deadline := time.Now().Add(waitFor); ; time.Sleep(5 * time.Millisecond) {
		p.mu.Lock()
		var n int
		var long bool
		for sub := range p.subs {
			sub.mu.Lock()
			n = len(sub.prefixes)
			long = sub.prefixes[strings.Repeat("x", maxTopic+1)]
			sub.mu.Unlock()
		}
		p.mu.Unlock()
		if long || n > maxSubscriptions {
			t.Fatalf("%d subscriptions (the long one: %v)", n, long)
		}
		if n == maxSubscriptions {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d subscriptions, want %d", n, maxSubscriptions)
		}
	}
}
