package kernel

import (
	"io"
	"sync"
)

// zmq4 writes a message a piece at a time: a frame's header, then its body,
// frame after frame (two writes a frame; the five to eight frames of a
// Jupyter message make ten to sixteen). On TCP each write is a system call
// and a segment that wakes the front end's socket thread, so a reply reached
// the front end in a dozen pieces. The kernel's connections gather a
// message's frames and write them at once, when the frame that ends the
// message (one without the MORE flag) is complete.

// flagMore marks a ZMTP frame that is followed by more of its message.
const flagMore = 0x01

// maxGather bounds the bytes gathered before they are written anyway; a
// write at least this large goes out at once, without a copy.
const maxGather = 64 << 10

// Write writes p to the connection, gathering the pieces of a message.
func (c *boundedConn) Write(p []byte) (int, error) {
	return c.out.write(c.Conn, p)
}

// gatherer collects the bytes a connection writes until a message ends.
type gatherer struct {
	mu       sync.Mutex
	greeting int    // bytes of our greeting still to pass, written as they come
	buf      []byte // gathered bytes not written yet
	frames   zmtpFrames
	err      error  // the first write error; every later write returns it
	hold     bool   // keep whole messages too, until gathered writes them
	commands []byte // command frames to write once the message being written ends
}

// gathered runs send, which writes whole messages to the connection, and
// writes them all at once when it returns: the messages a publisher found
// waiting go out together.
func (c *boundedConn) gathered(send func() error) error {
	c.out.mu.Lock()
	c.out.hold = true
	c.out.mu.Unlock()
	err := send()
	c.out.mu.Lock()
	defer c.out.mu.Unlock()
	c.out.hold = false
	if ferr := c.out.flush(c.Conn); err == nil {
		err = ferr
	}
	return err
}

// write writes p to w, or keeps it until the message it belongs to ends.
func (g *gatherer) write(w io.Writer, p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.writeLocked(w, p)
}

func (g *gatherer) writeLocked(w io.Writer, p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.greeting > 0 {
		n := min(len(p), g.greeting)
		m, err := w.Write(p[:n])
		g.greeting -= m
		if err != nil || n == len(p) {
			g.err = err
			return m, err
		}
		m2, err := g.writeLocked(w, p[n:])
		return m + m2, err
	}
	ends := g.follow(p)
	if len(g.buf)+len(p) >= maxGather {
		if err := g.flush(w); err != nil {
			return 0, err
		}
		if _, err := w.Write(p); err != nil {
			g.err = err
			return 0, err
		}
	} else {
		g.buf = append(g.buf, p...)
	}
	if ends && len(g.commands) > 0 {
		g.buf = append(g.buf, g.commands...)
		g.commands = nil
	}
	if ends && !g.hold {
		if err := g.flush(w); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// command writes a command frame (a PONG) to w, which the connection's
// reader answers while a socket's writer may be in the middle of a
// message: between two messages, at once or, when the writer has begun
// one, once it ends.
func (g *gatherer) command(w io.Writer, frame []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f := &g.frames
	if g.err != nil || g.greeting > 0 {
		return
	}
	if f.skip > 0 || f.hdrLen > 0 || f.flags&flagMore != 0 {
		g.commands = append(g.commands, frame...)
		return
	}
	g.buf = append(g.buf, frame...)
	if !g.hold {
		g.flush(w)
	}
}

// flush writes the gathered bytes.
func (g *gatherer) flush(w io.Writer) error {
	if len(g.buf) == 0 {
		return nil
	}
	_, err := w.Write(g.buf)
	g.buf = g.buf[:0]
	if cap(g.buf) > maxGather {
		g.buf = nil // do not keep a large buffer for small messages
	}
	g.err = err
	return err
}

// follow follows the ZMTP frames of p, the next bytes written, and reports
// whether p ends exactly at the end of a message: after the body of a
// frame without the MORE flag (a command is a message of its own).
func (g *gatherer) follow(p []byte) bool {
	for i := 0; i < len(p); {
		n, _ := g.frames.next(p[i:])
		i += n
	}
	f := &g.frames
	return f.skip == 0 && f.hdrLen == 0 && f.flags&flagMore == 0
}
