package kernel

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// TestPingIsAnswered sends a ZMTP 3.1 PING command to every port after the
// handshake: each must answer with a PONG that carries the PING's
// context, and serve on.
func TestPingIsAnswered(t *testing.T) {
	tk := startKernel(t, "")
	for _, p := range kernelPorts(tk.k.Connection()) {
		ping := append([]byte{flagCommand, 5 + 2 + 3}, "\x04PING\x00\x0actx"...)
		conn := handshaken(t, p.port, p.peerType, ping)
		conn.SetReadDeadline(time.Now().Add(waitFor))
		if _, err := io.ReadFull(conn, make([]byte, greetingSize)); err != nil {
			t.Fatal(err)
		}
		want := append([]byte{flagCommand, 5 + 3}, "\x04PONGctx"...)
		for {
			hdr := make([]byte, 2)
			if _, err := io.ReadFull(conn, hdr); err != nil {
				t.Fatalf("%s: no PONG: %v", p.name, err)
			}
			body := make([]byte, hdr[1])
			if _, err := io.ReadFull(conn, body); err != nil {
				t.Fatal(err)
			}
			if bytes.HasPrefix(body, []byte("\x05READY")) {
				continue
			}
			if got := append(hdr, body...); !bytes.Equal(got, want) {
				t.Fatalf("%s: %q, want %q", p.name, got, want)
			}
			break
		}
		conn.Close()
	}
	checkServing(t, tk)
}

// TestPongWaitsForTheMessageBeingWritten checks that a command the reader
// writes while a writer is in the middle of a message goes out after that
// message, not inside it.
func TestPongWaitsForTheMessageBeingWritten(t *testing.T) {
	var out bytes.Buffer
	g := &gatherer{}
	msg := rawMsg([]byte("one"), []byte("two"))
	g.write(&out, msg[:5]) // the first frame and part of the second's header
	pong := []byte{flagCommand, 5, 4, 'P', 'O', 'N', 'G'}
	g.command(&out, pong)
	g.write(&out, msg[5:])
	if want := append(append([]byte{}, msg...), pong...); !bytes.Equal(out.Bytes(), want) {
		t.Errorf("wrote %q, want %q", out.Bytes(), want)
	}
	out.Reset()
	g.command(&out, pong) // between messages: at once
	if !bytes.Equal(out.Bytes(), pong) {
		t.Errorf("between messages: wrote %q", out.Bytes())
	}
}

// TestGrow checks what grow promises: the bodies a large frame outgrows
// add up to at most a sixth of its size, and a capacity is at most four
// times the one before (growStep at first) or, when it is the whole
// frame, thirty-two times (the whole frame at once up to 2 MiB).
func TestGrow(t *testing.T) {
	for _, size := range []int{readBuffer + 1, growStep, growStep + 1, 1 << 20, 32 << 20, 255<<20 + 12345, DefaultMaxFrame} {
		outgrown, now := 0, grow(0, size)
		if now != growStep && now != size || now == size && size > 32*growStep {
			t.Errorf("size %d: first capacity %d", size, now)
		}
		for now < size {
			next := grow(now, size)
			if next <= now || next > 4*now && (next != size || next > 32*now) {
				t.Fatalf("size %d: capacity %d after %d", size, next, now)
			}
			outgrown += now
			now = next
		}
		if now != size || outgrown > size/6 {
			t.Errorf("size %d: ends at %d, %d outgrown", size, now, outgrown)
		}
	}
}
