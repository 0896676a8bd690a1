package kernel

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/transport"
)

// DefaultMaxFrame is the largest ZeroMQ frame, in bytes, that the kernel
// accepts from a peer unless Options.MaxFrame or MaxFrameEnv says
// otherwise.
const DefaultMaxFrame = 256 << 20

// MaxFrameEnv is the environment variable that sets the largest frame the
// kernel accepts when Options.MaxFrame is 0: a number of bytes, or a number
// followed by KiB, MiB or GiB ("64MiB").
const MaxFrameEnv = "PATHNOTES_MAX_FRAME"

// handshakeTimeout bounds the ZMTP greeting and security handshake of a new
// connection. zmq4 runs the handshake on the socket's accept loop, so a
// peer that connects and stays silent would otherwise keep every later
// front end from connecting to that port.
var handshakeTimeout = 10 * time.Second

// The schemes of the kernel's own zmq4 transports, on which it listens:
// TCP and unix sockets whose connections refuse oversized frames.
const (
	boundedTCP = "pathnotes-tcp"
	boundedIPC = "pathnotes-ipc"
)

// boundedNetworks are the networks of the bounded transports, by scheme.
var boundedNetworks = map[string]string{boundedTCP: "tcp", boundedIPC: "unix"}

func init() {
	for scheme, network := range boundedNetworks {
		if err := zmq4.RegisterTransport(scheme, boundedTransport{transport.New(network)}); err != nil {
			panic(err)
		}
	}
}

// frameBound is what a listener of a bounded transport needs to know; New
// puts one in the context of each socket, whence zmq4 passes it to Listen.
type frameBound struct {
	port      string // the channel name, for the log
	max       uint64
	handshake time.Duration // the handshakeTimeout when the kernel was made
	log       *slog.Logger
}

type frameBoundKey struct{}

// withFrameBound returns ctx carrying b for the listener of a socket made
// with it.
func withFrameBound(ctx context.Context, b frameBound) context.Context {
	return context.WithValue(ctx, frameBoundKey{}, b)
}

// parseMaxFrame reads a frame bound: bytes, or a number followed by KiB, MiB
// or GiB.
func parseMaxFrame(s string) (uint64, error) {
	num, mult := strings.TrimSpace(s), uint64(1)
	for suffix, m := range map[string]uint64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if strings.HasSuffix(num, suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, suffix)), m
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || n == 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("frame bound %q is not a positive number of bytes, KiB, MiB or GiB", s)
	}
	return n * mult, nil
}

// maxFrame returns the frame bound of opts: Options.MaxFrame, else
// MaxFrameEnv, else DefaultMaxFrame.
func maxFrame(opts Options) (uint64, error) {
	if opts.MaxFrame < 0 {
		return 0, fmt.Errorf("Options.MaxFrame %d is negative", opts.MaxFrame)
	}
	if opts.MaxFrame > 0 {
		return uint64(opts.MaxFrame), nil
	}
	if s := os.Getenv(MaxFrameEnv); s != "" {
		n, err := parseMaxFrame(s)
		if err != nil {
			return 0, fmt.Errorf("$%s: %w", MaxFrameEnv, err)
		}
		return n, nil
	}
	return DefaultMaxFrame, nil
}

// boundedTransport is a zmq4 transport whose listeners check what peers
// send before zmq4 reads it: zmq4 allocates a frame's claimed size before
// reading it, so that one header claiming 2^40 bytes would end the
// process, and it panics on some malformed handshakes (see checkReady).
type boundedTransport struct {
	transport.Transport
}

// Listen listens as the wrapped transport does, with the frameBound of ctx
// (the default bound and logger when it has none).
func (t boundedTransport) Listen(ctx context.Context, addr string) (net.Listener, error) {
	l, err := t.Transport.Listen(ctx, addr)
	if err != nil {
		return nil, err
	}
	b, ok := ctx.Value(frameBoundKey{}).(frameBound)
	if !ok {
		b = frameBound{port: addr, max: DefaultMaxFrame, handshake: handshakeTimeout, log: slog.Default()}
	}
	return boundedListener{Listener: l, bound: b}, nil
}

type boundedListener struct {
	net.Listener
	bound frameBound
}

// Accept returns the next connection, which closes itself when its peer
// sends a frame header over the bound, a handshake zmq4 would not survive,
// or no handshake in time.
func (l boundedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	c.SetReadDeadline(time.Now().Add(l.bound.handshake))
	return &boundedConn{Conn: c, bound: l.bound, greeting: greetingSize, scan: frameScanner{max: l.bound.max},
		out: gatherer{greeting: greetingSize}}, nil
}

// greetingSize is the length of the ZMTP 3 greeting, which precedes the
// first frame.
const greetingSize = 64

// maxHandshake bounds the first frame, the READY command of the NULL
// handshake: a few properties of at most a few hundred bytes.
const maxHandshake = 64 << 10

// boundedConn is a connection that checks what its peer sends before zmq4
// reads it: the handshake command whole, then each frame header.
type boundedConn struct {
	net.Conn
	bound    frameBound
	greeting int    // bytes of the greeting still to pass
	ready    bool   // the handshake command has been read and checked
	pending  []byte // the checked handshake command, not yet passed to zmq4
	scan     frameScanner
	err      error    // why the connection was closed; every later Read returns it
	out      gatherer // what we write, gathered into one write a message
	in       []byte   // read from the connection, not yet passed to zmq4
	inBuf    []byte   // in's storage, readBuffer bytes once the handshake is done
}

// readBuffer is how much a connection reads at once after its handshake:
// zmq4 reads a frame's header, then its body, a system call each, and a
// Jupyter message has five to eight frames.
const readBuffer = 16 << 10

// Read reads from the connection. It returns the greeting as it comes, then
// the handshake command once it has been read whole and checked, then the
// frames that follow as they come, up to a header over the bound. On
// trouble it closes the connection, logs why, and returns the error from
// then on.
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
			c.fail("bad handshake", err, "claimed", c.scan.claimed)
			return 0, c.err
		}
		c.pending, c.ready = frame, true
		c.Conn.SetReadDeadline(time.Time{})
	}
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	n, err := c.readBuffered(p)
	ok, tooBig := c.scan.scan(p[:n])
	if tooBig != nil {
		c.fail("frame over the bound", tooBig, "claimed", c.scan.claimed, "max", c.bound.max)
		if ok == 0 {
			return 0, c.err
		}
		return ok, nil
	}
	return n, err
}

// readBuffered reads into p what the last read of the connection left, or
// else reads once, up to readBuffer bytes, and passes on what fits p. A p
// at least that long is read into directly.
func (c *boundedConn) readBuffered(p []byte) (int, error) {
	if len(c.in) == 0 {
		if len(p) >= readBuffer {
			return c.Conn.Read(p)
		}
		if c.inBuf == nil {
			c.inBuf = make([]byte, readBuffer)
		}
		n, err := c.Conn.Read(c.inBuf)
		if n == 0 {
			return 0, err
		}
		c.in = c.inBuf[:n] // an error with bytes comes again on the next read
	}
	n := copy(p, c.in)
	c.in = c.in[n:]
	return n, nil
}

// fail closes the connection for err and logs why, unless the peer closed
// it.
func (c *boundedConn) fail(why string, err error, attrs ...any) {
	c.err = err
	defer c.Conn.Close()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return // the peer left
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		why, err = "no handshake", fmt.Errorf("no ZMTP handshake within %v", c.bound.handshake)
		c.err = err
	}
	c.bound.log.Warn("connection closed: "+why, append([]any{"port", c.bound.port,
		"peer", c.RemoteAddr().String(), "err", err}, attrs...)...)
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
	c.scan.claimed = uint64(frame[1])
	if frame[0]&flagLong != 0 {
		frame = frame[:9]
		if _, err := io.ReadFull(c.Conn, frame[2:]); err != nil {
			return nil, err
		}
		c.scan.claimed = binary.BigEndian.Uint64(frame[1:9])
	}
	if frame[0]&flagCommand == 0 {
		return nil, errors.New("the first frame is not a handshake command")
	}
	if c.scan.claimed > min(maxHandshake, c.bound.max) {
		return nil, fmt.Errorf("handshake command of %d bytes is over the bound of %d", c.scan.claimed, min(maxHandshake, c.bound.max))
	}
	frame = append(frame, make([]byte, c.scan.claimed)...)
	if _, err := io.ReadFull(c.Conn, frame[len(frame)-int(c.scan.claimed):]); err != nil {
		return nil, err
	}
	if err := checkReady(frame[len(frame)-int(c.scan.claimed):]); err != nil {
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
// 1- or 8-byte size (flagLong) and a body. The frame bound reads it on what
// a peer sends, the gatherer on what the kernel writes.
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

// frameScanner checks the frame headers of a byte stream against a bound.
type frameScanner struct {
	zmtpFrames
	max     uint64
	claimed uint64 // the size of the last header
}

// scan follows b, the next bytes of the stream. It returns len(b), or,
// when a header in b claims more than the bound, the offset in b where that
// header starts and an error.
func (s *frameScanner) scan(b []byte) (int, error) {
	for i := 0; i < len(b); {
		n, header := s.next(b[i:])
		i += n
		if !header {
			continue
		}
		s.claimed = s.size
		if s.claimed > s.max {
			return max(i-s.headerLen(), 0), fmt.Errorf("frame of %d bytes is over the bound of %d", s.claimed, s.max)
		}
	}
	return len(b), nil
}
