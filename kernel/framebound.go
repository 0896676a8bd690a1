package kernel

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"time"
)

// The schemes of the endpoints on which the kernel's sockets listen: TCP
// and unix sockets whose connections are boundedConns.
const (
	boundedTCP = "pathnotes-tcp"
	boundedIPC = "pathnotes-ipc"
)

// boundedNetworks are the networks of the bounded schemes.
var boundedNetworks = map[string]string{boundedTCP: "tcp", boundedIPC: "unix"}

// greetingSize is the length of the ZMTP 3 greeting, which precedes the
// first frame.
const greetingSize = 64

// maxHandshake bounds the first frame, the READY command of the NULL
// handshake: a few properties of at most a few hundred bytes.
const maxHandshake = 64 << 10

// boundedConn is a connection to one of the kernel's ports. zmq4 makes
// the handshake over it, and writes to it; the connection checks the
// handshake before zmq4 reads it, and reads the messages that follow
// itself (readMsg), within the bounds of its port.
type boundedConn struct {
	net.Conn
	limits   wireLimits
	port     string // the channel name, for the log
	greeting int    // bytes of the greeting still to pass
	ready    bool   // the handshake command has been read and checked
	pending  []byte // the checked handshake command, not yet passed to zmq4
	claimed  uint64 // the size of the last frame header read, for the log
	err      error  // why the connection was closed; every later read returns it
	out      gatherer
	in       []byte // read from the connection, not yet taken
	inBuf    []byte // in's storage, readBuffer bytes

	msg      msgState
	verified bool // the connection has sent a message whose signature checked

	// What the port's cap looks at when it must evict a connection.
	standing atomic.Int32 // a standing
	since    atomic.Int64 // when it took that standing, in Unix nanoseconds
}

// newBoundedConn returns c as a connection to port, whose handshake must
// end within the limits' handshake timeout.
func newBoundedConn(c net.Conn, limits wireLimits, port string) *boundedConn {
	c.SetReadDeadline(time.Now().Add(limits.handshake))
	bc := &boundedConn{Conn: c, limits: limits, port: port, greeting: greetingSize, out: gatherer{greeting: greetingSize}}
	bc.stand(standingBusy)
	return bc
}

// readBuffer is how much a connection reads at once: a Jupyter message
// of five to eight small frames comes in one read.
const readBuffer = 16 << 10

// Read passes the greeting to zmq4 as it comes, then the handshake command
// once it has been read whole and checked; it is not used after that
// (readMsg is). On trouble it closes the connection, logs why, and returns
// the error from then on.
func (c *boundedConn) Read(p []byte) (int, error) {
	switch {
	case c.err != nil:
		return 0, c.err
	case c.greeting > 0:
		n, err := c.Conn.Read(p[:min(len(p), c.greeting)])
		c.greeting -= n
		if err != nil && n == 0 {
			c.fail("no greeting", err)
		}
		return n, err
	case !c.ready:
		frame, err := c.readHandshake()
		if err != nil {
			c.fail("bad handshake", err, "claimed", c.claimed)
			return 0, c.err
		}
		c.pending, c.ready = frame, true
		c.Conn.SetReadDeadline(time.Time{})
	}
	if len(c.pending) == 0 {
		return 0, errors.New("kernel: a read past the ZMTP handshake")
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// fail logs why the connection ends, unless the peer left or the port
// closed it, gives back what it drew on the budget, and closes it.
func (c *boundedConn) fail(why string, err error, attrs ...any) {
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed):
	case errors.As(err, &ne) && ne.Timeout():
		why, err = "no handshake", fmt.Errorf("no ZMTP handshake within %v", c.limits.handshake)
		if c.ready {
			why, err = "too slow", fmt.Errorf("a message stalled for %v, or came slower than %d bytes a second after %v",
				progressGrace, minRate, progressGrace)
		}
		fallthrough
	default:
		c.limits.log.Warn("connection closed: "+why, append([]any{"port", c.port,
			"peer", c.RemoteAddr().String(), "err", err}, attrs...)...)
	}
	c.err = err
	c.release()
	c.Conn.Close()
}

// ZMTP 3 frame flags.
const (
	flagLong    = 0x02 // the size takes 8 bytes, big-endian, instead of 1
	flagCommand = 0x04
)

// readHandshake reads the first frame after the greeting and returns it
// whole if it is a READY command that zmq4 can parse: zmq4 panics, ending
// the process, on a property that runs past the command or on a missing or
// unknown Socket-Type.
func (c *boundedConn) readHandshake() ([]byte, error) {
	frame := make([]byte, 2, 9)
	if _, err := io.ReadFull(c.Conn, frame); err != nil {
		return nil, err
	}
	c.claimed = uint64(frame[1])
	if frame[0]&flagLong != 0 {
		frame = frame[:9]
		if _, err := io.ReadFull(c.Conn, frame[2:]); err != nil {
			return nil, err
		}
		c.claimed = binary.BigEndian.Uint64(frame[1:9])
	}
	if frame[0]&flagCommand == 0 {
		return nil, errors.New("the first frame is not a handshake command")
	}
	if c.claimed > min(maxHandshake, c.limits.maxFrame) {
		return nil, fmt.Errorf("handshake command of %d bytes is over the bound of %d", c.claimed, min(maxHandshake, c.limits.maxFrame))
	}
	frame = append(frame, make([]byte, c.claimed)...)
	if _, err := io.ReadFull(c.Conn, frame[len(frame)-int(c.claimed):]); err != nil {
		return nil, err
	}
	if err := checkReady(frame[len(frame)-int(c.claimed):]); err != nil {
		return nil, err
	}
	return frame, nil
}

// socketTypes are the ZMTP socket types zmq4 knows.
var socketTypes = map[string]bool{"PAIR": true, "PUB": true, "SUB": true, "REQ": true, "REP": true,
	"DEALER": true, "ROUTER": true, "PULL": true, "PUSH": true, "XPUB": true, "XSUB": true}

// checkReady checks the body of a READY command: its name, then properties
// of a 1-byte name length, the name, a 4-byte value length and the value,
// which must fit the body exactly. A Socket-Type property must be there,
// and every property zmq4 might take for it must name a known type.
func checkReady(body []byte) error {
	const ready = "\x05READY"
	if !strings.HasPrefix(string(body), ready) {
		return errors.New("the handshake command is not READY")
	}
	typed := false
	for i := len(ready); i < len(body); {
		klen := int(body[i])
		i++
		if len(body)-i < klen+4 {
			return errors.New("READY: a property runs past the command")
		}
		key := string(body[i : i+klen])
		vlen := uint64(binary.BigEndian.Uint32(body[i+klen:]))
		i += klen + 4
		if uint64(len(body)-i) < vlen {
			return errors.New("READY: a property value runs past the command")
		}
		value := string(body[i : i+int(vlen)])
		i += int(vlen)
		if strings.EqualFold(key, "Socket-Type") {
			if !socketTypes[value] {
				return fmt.Errorf("READY: unknown Socket-Type %q", value)
			}
			typed = typed || key == "Socket-Type"
		}
	}
	if !typed {
		return errors.New("READY: no Socket-Type")
	}
	return nil
}

// zmtpFrames follows the ZMTP 3 frames of a byte stream: a flags byte, a
// 1- or 8-byte size (flagLong) and a body. The gatherer follows what the
// kernel writes with it.
type zmtpFrames struct {
	skip   uint64  // bytes of body still to pass
	hdr    [9]byte // the header being read
	hdrLen int     // bytes of hdr read so far
	flags  byte    // the flags of the last complete header
	size   uint64  // the size of the last complete header
}

// next passes the bytes of b up to the end of the next complete header. It
// returns how many it passed and whether a header ended there; then flags
// and size hold it, and its body is the next to pass.
func (f *zmtpFrames) next(b []byte) (int, bool) {
	for i := 0; i < len(b); {
		if f.skip > 0 {
			step := min(f.skip, uint64(len(b)-i))
			f.skip -= step
			i += int(step)
			continue
		}
		f.hdr[f.hdrLen] = b[i]
		f.hdrLen++
		i++
		if f.hdrLen < f.headerLen() {
			continue
		}
		f.flags = f.hdr[0]
		f.size = uint64(f.hdr[1])
		if f.hdrLen == 9 {
			f.size = binary.BigEndian.Uint64(f.hdr[1:9])
		}
		f.hdrLen = 0
		f.skip = f.size
		return i, true
	}
	return len(b), false
}

// headerLen is the length of the header being read: 9 bytes with a long
// size, else 2.
func (f *zmtpFrames) headerLen() int {
	if f.hdr[0]&flagLong != 0 {
		return 9
	}
	return 2
}
