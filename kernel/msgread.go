package kernel

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-zeromq/zmq4"
)

// zmq4 reads a message frame by frame, allocating each frame's announced
// size before its body comes, and keeps every frame until the message
// ends: a peer could make the kernel hold gigabytes with a few headers,
// or with one message of many frames, before any signature was checked.
// The kernel's connections read their messages themselves: each frame
// within the frame bound, the message within the message bound, a large
// body allocated as its bytes arrive, and what a connection not yet
// verified holds beyond freeHold drawn on the budget that all such
// connections share.

// msgState is what a connection knows of the message it is reading.
type msgState struct {
	held     int64     // bytes allocated for its frames so far
	charged  int64     // the part of held drawn on the budget
	began    time.Time // when the kernel first waited for its rest; zero until then
	received int64     // bytes read since began
	deadline bool      // a progress deadline is set on the connection
}

// frameCost is what a frame costs the kernel beside its body: its place
// in the message's list of frames. A message of many empty frames counts
// against the bounds too.
const frameCost = 64

// growStep is the first allocation for a large frame's body, which grows
// as the bytes come (see grow).
const growStep = 64 << 10

// refusal is why a connection is closed while it reads a message.
type refusal struct {
	why   string // the log's headline
	err   error
	attrs []any // for the log
}

func (r *refusal) Error() string { return r.err.Error() }

// readMsg reads the next message from the peer. It answers a PING command
// with a PONG and skips other commands. When the peer breaks a bound or is
// too slow in the middle of a message, or the connection fails, it closes
// the connection, logs why, and returns the error, then and on every
// later call. The socket calls settle once it has dealt with the message.
func (c *boundedConn) readMsg() (zmq4.Msg, error) {
	for c.err == nil {
		frames, cmd, err := c.readFrames()
		if err != nil {
			var r *refusal
			if errors.As(err, &r) {
				c.fail(r.why, r.err, r.attrs...)
			} else {
				c.fail("read failed", err)
			}
			break
		}
		if c.msg.deadline {
			c.Conn.SetReadDeadline(time.Time{})
		}
		c.msg.began, c.msg.deadline = time.Time{}, false
		if !cmd {
			return zmq4.NewMsgFrom(frames...), nil
		}
		c.answer(frames[0])
		c.release()
	}
	return zmq4.Msg{}, c.err
}

// readFrames reads the frames of one message, or one command.
func (c *boundedConn) readFrames() (frames [][]byte, cmd bool, err error) {
	var total uint64
	for {
		hdr, err := c.need(2, len(frames) > 0)
		if err != nil {
			return nil, false, err
		}
		flags, size := hdr[0], uint64(hdr[1])
		if flags&flagLong != 0 {
			rest, err := c.need(7, true)
			if err != nil {
				return nil, false, err
			}
			size = size<<56 | uint64(rest[0])<<48 | uint64(rest[1])<<40 | uint64(rest[2])<<32 |
				uint64(rest[3])<<24 | uint64(rest[4])<<16 | uint64(rest[5])<<8 | uint64(rest[6])
		}
		c.claimed = size
		command := flags&flagCommand != 0
		switch {
		case command && (len(frames) > 0 || flags&flagMore != 0):
			return nil, false, &refusal{"malformed message", errors.New("a command frame inside a message"), nil}
		case command && size > maxHandshake:
			return nil, false, &refusal{"command over the bound",
				fmt.Errorf("command of %d bytes is over the bound of %d", size, maxHandshake), []any{"claimed", size}}
		case size > c.limits.maxFrame:
			return nil, false, &refusal{"frame over the bound",
				fmt.Errorf("frame of %d bytes is over the bound of %d", size, c.limits.maxFrame),
				[]any{"claimed", size, "max", c.limits.maxFrame}}
		case total+size+frameCost > c.limits.maxMessage:
			return nil, false, &refusal{"message over the bound",
				fmt.Errorf("message of %d frames and %d bytes so far is over the bound of %d", len(frames)+1, total+size+frameCost, c.limits.maxMessage),
				[]any{"claimed", total + size + frameCost, "max", c.limits.maxMessage}}
		}
		total += size + frameCost
		if err := c.hold(frameCost); err != nil {
			return nil, false, err
		}
		body, err := c.readBody(int(size))
		if err != nil {
			return nil, false, err
		}
		frames = append(frames, body)
		if command || flags&flagMore == 0 {
			return frames, command, nil
		}
	}
}

// readBody reads a frame's body of size bytes: a small one through the
// connection's buffer, a large one into a slice that grows as it comes.
func (c *boundedConn) readBody(size int) ([]byte, error) {
	if size <= readBuffer {
		if err := c.hold(int64(size)); err != nil {
			return nil, err
		}
		b, err := c.need(size, true)
		if err != nil {
			return nil, err
		}
		return append(make([]byte, 0, size), b...), nil
	}
	body := make([]byte, 0, grow(0, size))
	if err := c.hold(int64(cap(body))); err != nil {
		return nil, err
	}
	body = append(body, c.in...)
	c.in = c.in[len(c.in):]
	for len(body) < size {
		if len(body) == cap(body) {
			next := grow(cap(body), size)
			if err := c.hold(int64(next - cap(body))); err != nil {
				return nil, err
			}
			body = append(make([]byte, 0, next), body...)
		}
		n, err := c.recv(body[len(body):cap(body)], true)
		body = body[:len(body)+n]
		if n == 0 && err != nil {
			return nil, err
		}
	}
	return body, nil
}

// grow returns the next capacity of a large body of size bytes whose
// capacity is now, all of it received: four times as much (growStep at
// first), and all of size once that is at most 32 times now (or
// growStep). The bodies a frame outgrows come to a sixth of its size at
// most, and the kernel allocates a frame over 2 MiB whole only once a
// thirty-second of it has come.
func grow(now, size int) int {
	if 32*max(now, growStep) >= size {
		return size
	}
	return max(4*now, growStep)
}

// need returns the next n bytes of the input, n at most readBuffer,
// reading until there are that many; mid says whether a message has
// begun. The bytes are valid until the next call.
func (c *boundedConn) need(n int, mid bool) ([]byte, error) {
	for len(c.in) < n {
		if c.inBuf == nil {
			c.inBuf = make([]byte, readBuffer)
		}
		kept := copy(c.inBuf, c.in)
		k, err := c.recv(c.inBuf[kept:], mid || kept > 0)
		c.in = c.inBuf[:kept+k]
		if k == 0 && err != nil {
			return nil, err
		}
	}
	b := c.in[:n]
	c.in = c.in[n:]
	return b, nil
}

// recv reads once into p. In the middle of a message the read must end
// by the progress deadline: progressGrace from now, and no later than
// progressGrace after the kernel first waited for this message plus the
// time its bytes since then take at minRate. Between messages it waits
// as long as the peer likes.
func (c *boundedConn) recv(p []byte, mid bool) (int, error) {
	if mid {
		m := &c.msg
		now := time.Now()
		if m.began.IsZero() {
			m.began, m.received = now, 0
			if !c.verified {
				c.stand(standingBusy)
			}
		}
		due := m.began.Add(progressGrace + time.Duration(m.received)*(time.Second/minRate))
		if stall := now.Add(progressGrace); stall.Before(due) {
			due = stall
		}
		c.Conn.SetReadDeadline(due)
		m.deadline = true
	}
	n, err := c.Conn.Read(p)
	c.msg.received += int64(n)
	return n, err
}

// errOverBudget is why a connection not yet verified may not hold more.
var errOverBudget = errors.New("the connections whose messages have not been verified hold all the memory allowed them")

// hold counts n more bytes held for the message being read and, for a
// connection not yet verified, draws what goes beyond freeHold on the
// budget.
func (c *boundedConn) hold(n int64) error {
	c.msg.held += n
	if c.verified {
		return nil
	}
	if over := c.msg.held - freeHold - c.msg.charged; over > 0 {
		if !c.limits.unverified.take(over) {
			return &refusal{"over the budget", errOverBudget, []any{"held", c.msg.held}}
		}
		c.msg.charged += over
	}
	return nil
}

// release gives back what the message read last drew on the budget.
func (c *boundedConn) release() {
	if c.msg.charged > 0 {
		c.limits.unverified.give(c.msg.charged)
	}
	c.msg.held, c.msg.charged = 0, 0
}

// settle ends the message read last, which the socket has dealt with and
// judged s: standingVerified, standingAccepted or standingRefused.
func (c *boundedConn) settle(s standing) {
	c.release()
	if c.verified {
		return
	}
	c.verified = s == standingVerified
	c.stand(s)
}

// answer answers a PING command (body cmd) with a PONG that carries the
// PING's context, as ZMTP 3.1 asks; other commands mean nothing here.
func (c *boundedConn) answer(cmd []byte) {
	const ping = "\x04PING"
	if !strings.HasPrefix(string(cmd), ping) || len(cmd) < len(ping)+2 || len(cmd) > len(ping)+2+16 {
		return
	}
	context := cmd[len(ping)+2:] // after the TTL
	pong := append([]byte{flagCommand, byte(5 + len(context)), 4, 'P', 'O', 'N', 'G'}, context...)
	c.out.command(c.Conn, pong)
}
