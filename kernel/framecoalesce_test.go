package kernel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"testing"
)

// writeLog records each write it is given.
type writeLog struct {
	writes [][]byte
	err    error
}

func (w *writeLog) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.writes = append(w.writes, append([]byte(nil), p...))
	return len(p), nil
}

// frame returns a ZMTP frame header for a body of n bytes, and the body.
func frame(flags byte, n int) (hdr, body []byte) {
	if n > 255 {
		hdr = make([]byte, 9)
		hdr[0] = flags | flagLong
		binary.BigEndian.PutUint64(hdr[1:], uint64(n))
	} else {
		hdr = []byte{flags, byte(n)}
	}
	return hdr, bytes.Repeat([]byte{'b'}, n)
}

func TestGathererWritesAMessageAtOnce(t *testing.T) {
	w := &writeLog{}
	g := &gatherer{greeting: greetingSize}
	put := func(p []byte) {
		t.Helper()
		if n, err := g.write(w, p); n != len(p) || err != nil {
			t.Fatalf("write of %d bytes: %d, %v", len(p), n, err)
		}
	}
	greeting := bytes.Repeat([]byte{'g'}, greetingSize)
	put(greeting[:10])
	put(greeting[10:])
	if len(w.writes) != 2 {
		t.Fatalf("greeting written in %d writes, want 2 as given", len(w.writes))
	}
	// A command (READY), then a message of three frames, one of them long,
	// written as zmq4 writes them: header, body, header, body...
	var want []byte
	h, b := frame(flagCommand, 30)
	put(h)
	put(b)
	if len(w.writes) != 3 || !bytes.Equal(w.writes[2], append(h, b...)) {
		t.Fatalf("the command was not written whole once its body came: %d writes", len(w.writes))
	}
	for i, n := range []int{5, 300, 0} {
		flags := byte(flagMore)
		if i == 2 {
			flags = 0
		}
		h, b := frame(flags, n)
		put(h)
		put(b)
		want = append(want, h...)
		want = append(want, b...)
		if i < 2 && len(w.writes) != 3 {
			t.Fatalf("frame %d with MORE written before the message ended", i)
		}
	}
	if len(w.writes) != 4 || !bytes.Equal(w.writes[3], want) {
		t.Fatalf("message written in %d writes (want one more after the command), %d bytes, want %d", len(w.writes)-3, len(w.writes[len(w.writes)-1]), len(want))
	}
}

func TestGathererWritesLargeBodiesAtOnce(t *testing.T) {
	w := &writeLog{}
	g := &gatherer{}
	h, b := frame(flagMore, maxGather)
	g.write(w, h)
	g.write(w, b)
	if len(w.writes) != 2 || len(w.writes[1]) != maxGather {
		t.Fatalf("a %d-byte body was held back: %d writes", maxGather, len(w.writes))
	}
	h, b = frame(0, 1)
	g.write(w, h)
	g.write(w, b)
	if got := len(w.writes); got != 3 {
		t.Fatalf("%d writes, want the last frame in one more", got)
	}
}

func TestGathererKeepsTheFirstError(t *testing.T) {
	w := &writeLog{err: errors.New("broken pipe")}
	g := &gatherer{}
	h, b := frame(0, 3)
	g.write(w, h)
	if _, err := g.write(w, b); err == nil {
		t.Fatal("no error from the write that ends the message")
	}
	w.err = nil
	if _, err := g.write(w, h); err == nil || err.Error() != "broken pipe" {
		t.Errorf("a write after a failed one: %v, want the first error", err)
	}
}

// logConn is a connection that records its writes.
type logConn struct {
	net.Conn
	log *writeLog
}

func (c logConn) Write(p []byte) (int, error) { return c.log.Write(p) }

// TestGatheredWritesMessagesAtOnce checks that the messages written inside
// gathered go out in one write, and those written outside in one each.
func TestGatheredWritesMessagesAtOnce(t *testing.T) {
	w := &writeLog{}
	c := &boundedConn{Conn: logConn{log: w}}
	message := func() {
		for _, flags := range []byte{flagMore, 0} {
			h, b := frame(flags, 10)
			c.Write(h)
			c.Write(b)
		}
	}
	message()
	message()
	if len(w.writes) != 2 {
		t.Fatalf("two messages written in %d writes, want 2", len(w.writes))
	}
	if err := c.gathered(func() error { message(); message(); message(); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(w.writes) != 3 || len(w.writes[2]) != 3*2*(2+10) {
		t.Fatalf("three gathered messages: %d writes in all, the last of %d bytes; want one of %d", len(w.writes), len(w.writes[len(w.writes)-1]), 3*2*12)
	}
	message()
	if len(w.writes) != 4 {
		t.Errorf("a message after gathered: %d writes in all, want 4", len(w.writes))
	}
}
