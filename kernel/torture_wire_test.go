package kernel

// Torture tests of the wire: peers that connect and stay silent, send a
// message a byte at a time, stop in the middle of one, or open more
// connections than a port keeps.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawFrame is a ZMTP frame: its header, with flagLong when body needs it,
// and body.
func rawFrame(flags byte, body []byte) []byte {
	if len(body) > 255 {
		return append(binary.BigEndian.AppendUint64([]byte{flags | flagLong}, uint64(len(body))), body...)
	}
	return append([]byte{flags, byte(len(body))}, body...)
}

// rawMsg encodes frames as one ZMTP message.
func rawMsg(frames ...[]byte) []byte {
	var b []byte
	for i, f := range frames {
		flags := byte(0)
		if i < len(frames)-1 {
			flags = flagMore
		}
		b = append(b, rawFrame(flags, f)...)
	}
	return b
}

// readRawMsg reads the next ZMTP message from conn, skipping commands.
func readRawMsg(conn net.Conn) ([][]byte, error) {
	var frames [][]byte
	for {
		hdr := make([]byte, 2, 9)
		if _, err := io.ReadFull(conn, hdr); err != nil {
			return nil, err
		}
		size := uint64(hdr[1])
		if hdr[0]&flagLong != 0 {
			hdr = hdr[:9]
			if _, err := io.ReadFull(conn, hdr[2:]); err != nil {
				return nil, err
			}
			size = binary.BigEndian.Uint64(hdr[1:])
		}
		if size > 1<<20 {
			return nil, fmt.Errorf("a frame of %d bytes from the kernel", size)
		}
		body := make([]byte, size)
		if _, err := io.ReadFull(conn, body); err != nil {
			return nil, err
		}
		if hdr[0]&flagCommand != 0 {
			continue
		}
		frames = append(frames, body)
		if hdr[0]&flagMore == 0 {
			return frames, nil
		}
	}
}

// hbEcho connects a new heartbeat client to port, as a raw REQ socket, and
// checks that its ping comes back within d.
func hbEcho(port int, d time.Duration) error {
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), d)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(d))
	ping := []byte("ping " + newID())
	msg := append(append(zmtpGreeting(), zmtpReady("REQ")...), rawMsg(nil, ping)...)
	if _, err := conn.Write(msg); err != nil {
		return err
	}
	if _, err := io.ReadFull(conn, make([]byte, greetingSize)); err != nil {
		return fmt.Errorf("no greeting: %w", err)
	}
	frames, err := readRawMsg(conn)
	if err != nil {
		return fmt.Errorf("no echo: %w", err)
	}
	if len(frames) != 2 || len(frames[0]) != 0 || !bytes.Equal(frames[1], ping) {
		return fmt.Errorf("echo %q, want [\"\" %q]", frames, ping)
	}
	return nil
}

// TestTortureHeartbeatBehindSilentPeers connects to the heartbeat port and
// stays silent, and goes on doing so every 100 ms; meanwhile a new
// heartbeat client every 100 ms must have its ping echoed within a second.
// zmq4's REP socket greeted its peers one at a time, so that each silent
// connection held every new client for the handshake timeout (10 s).
func TestTortureHeartbeatBehindSilentPeers(t *testing.T) {
	tk, c := startTorture(t)
	hb := tk.k.Connection().HBPort
	var mu sync.Mutex
	var silent []net.Conn
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range silent {
			s.Close()
		}
	}()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			s, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(hb)))
			if err == nil {
				mu.Lock()
				silent = append(silent, s)
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	for i := range 30 {
		time.Sleep(100 * time.Millisecond)
		if err := hbEcho(hb, time.Second); err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("ping %d of a new heartbeat client, behind %d silent connections: %v", i, len(silent), err)
		}
	}
	close(stop)
	wg.Wait()
	assertAlive(t, c, "silent heartbeat connections")
}

// isOpen reports whether the kernel keeps conn open: a read finds no end of
// stream within 50 ms. What the kernel sent (its greeting) is read and
// dropped.
func isOpen(conn net.Conn) bool {
	buf := make([]byte, 4<<10)
	for {
		conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		_, err := conn.Read(buf)
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			return true
		case err != nil:
			return false
		}
	}
}

// openConns reports isOpen for each connection, looking at all at once.
func openConns(conns []net.Conn) []bool {
	open := make([]bool, len(conns))
	var wg sync.WaitGroup
	for i, conn := range conns {
		wg.Go(func() { open[i] = isOpen(conn) })
	}
	wg.Wait()
	return open
}

// handshaken connects to port as a peer of type peerType, sends the
// greeting, the READY command and then extra.
func handshaken(t *testing.T, port int, peerType string, extra ...[]byte) net.Conn {
	return sendRaw(t, port, append([][]byte{zmtpReady(peerType)}, extra...)...)
}

// TestTortureSlowPeers connects to every port, after the handshake, peers
// that send a message a byte every 250 ms (10 per port), a peer that stops
// in the middle of a message, and a peer that sends nothing more. The
// kernel must close the first two kinds, and only those, 10 s after the
// message began (not before), while the torture client, quiet all that
// time, keeps its connections.
func TestTortureSlowPeers(t *testing.T) {
	tk, c := startTorture(t)
	ping(t, c, "before the slow peers") // the client's REQ socket has sent its ping
	const grace = 10 * time.Second
	type peer struct {
		conn       net.Conn
		port, kind string
	}
	var peers []peer
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(stop)
		wg.Wait()
		for _, p := range peers {
			p.conn.Close()
		}
	}()
	start := time.Now()
	for _, p := range kernelPorts(tk.k.Connection()) {
		// A message of one frame of 1000 bytes, cut short.
		header := hugeFrame(0, 1000)
		for range 10 {
			conn := handshaken(t, p.port, p.peerType, header)
			peers = append(peers, peer{conn, p.name, "trickle"})
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					case <-time.After(250 * time.Millisecond):
					}
					if _, err := conn.Write([]byte{'x'}); err != nil {
						return
					}
				}
			})
		}
		peers = append(peers, peer{handshaken(t, p.port, p.peerType, header, make([]byte, 500)), p.name, "stall"},
			peer{handshaken(t, p.port, p.peerType), p.name, "quiet"})
	}
	conns := make([]net.Conn, len(peers))
	for i, p := range peers {
		conns[i] = p.conn
	}
	time.Sleep(grace - 2*time.Second - time.Since(start))
	for i, open := range openConns(conns) {
		if !open {
			t.Fatalf("%s: a %s peer was closed after %v, before %v", peers[i].port, peers[i].kind, time.Since(start).Round(time.Millisecond), grace)
		}
	}
	for {
		open := openConns(conns)
		left := 0
		for i, p := range peers {
			if p.kind != "quiet" && open[i] {
				left++
			}
			if p.kind == "quiet" && !open[i] {
				t.Fatalf("%s: a peer quiet between messages was closed", p.port)
			}
		}
		if left == 0 {
			break
		}
		if time.Since(start) > grace+5*time.Second {
			t.Fatalf("%d slow peers still open after %v", left, time.Since(start).Round(time.Millisecond))
		}
	}
	if n := strings.Count(tk.logs.String(), "connection closed: too slow"); n != 55 {
		t.Errorf("%d slow peers logged, want 55", n)
	}
	assertAlive(t, c, "slow peers")
}

// TestTortureConnectionFlood sets the cap to 16 connections a port, and
// floods every port with 64 connections that make their handshake and stay
// silent, and 16 that stop in their greeting. Each port must keep at most
// 16, closing the flood's oldest; the torture client, which has sent a
// signed request on shell and control, a subscription on iopub and a
// ping, keeps its connections; and a new client gets in.
func TestTortureConnectionFlood(t *testing.T) {
	const maxConns = 16
	t.Setenv("PATHNOTES_MAX_CONNECTIONS", strconv.Itoa(maxConns))
	tk, c := startTorture(t)
	assertAlive(t, c, "before the flood")
	for _, p := range kernelPorts(tk.k.Connection()) {
		var flood []net.Conn
		for i := range 80 {
			var conn net.Conn
			if i%5 == 0 {
				conn = sendRaw(t, p.port, zmtpReady(p.peerType)[:3])
			} else {
				conn = handshaken(t, p.port, p.peerType)
			}
			defer conn.Close()
			flood = append(flood, conn)
		}
		open := 0
		for deadline := time.Now().Add(waitFor); ; time.Sleep(50 * time.Millisecond) {
			states := openConns(flood)
			open = 0
			for _, o := range states {
				if o {
					open++
				}
			}
			if open <= maxConns || time.Now().After(deadline) {
				if !states[len(states)-1] {
					t.Errorf("%s: the newest connection was closed", p.name)
				}
				break
			}
		}
		if open > maxConns {
			t.Fatalf("%s: %d of the flood's %d connections are open, over the cap of %d", p.name, open, len(flood), maxConns)
		}
	}
	if !strings.Contains(tk.logs.String(), "connection evicted") {
		t.Error("no log of an evicted connection")
	}
	assertAlive(t, c, "a flood of connections")
	assertAlive(t, connect(t, tk, testKey), "a flood of connections, from a new client")
}

// TestCapKeepsVerifiedConnections sets the cap to 2 connections a port and
// connects two clients, whose shell connections send signed requests: a
// third connection to shell must be refused, not evict either of them.
func TestCapKeepsVerifiedConnections(t *testing.T) {
	t.Setenv(MaxConnectionsEnv, "2")
	tk := startKernel(t, "")
	a, b := connect(t, tk, testKey), connect(t, tk, testKey)
	third, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(tk.k.Connection().ShellPort)))
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	waitClosed(t, third, "a third connection to shell")
	for _, c := range []*testClient{a, b} {
		id := c.send(c.shell, "kernel_info_request", map[string]any{})
		if r := content(t, c.reply(c.shellMsgs, id)); r["status"] != "ok" {
			t.Fatalf("kernel_info_reply %v", r)
		}
	}
	if !strings.Contains(tk.logs.String(), "connection refused: every connection of the port has sent a signed message") {
		t.Error("no log of the refused connection")
	}
}
