package kernel

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
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

func init() {
	for scheme, network := range map[string]string{boundedTCP: "tcp", boundedIPC: "unix"} {
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

// boundedTransport is a zmq4 transport whose listeners check the ZMTP frame
// headers of what peers send before zmq4 reads them: zmq4 allocates a
// frame's claimed size before reading it, so that one header claiming 2^40
// bytes would end the process.
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
// sends a frame header over the bound or does not finish the handshake in
// time.
func (l boundedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	c.SetReadDeadline(time.Now().Add(l.bound.handshake))
	return &boundedConn{Conn: c, bound: l.bound, scan: frameScanner{max: l.bound.max, skip: greetingSize}}, nil
}

// greetingSize is the length of the ZMTP 3 greeting, which precedes the
// first frame.
const greetingSize = 64

// boundedConn is a connection whose reads pass through a frameScanner.
type boundedConn struct {
	net.Conn
	bound frameBound
	scan  frameScanner
	ready bool  // the first frame (the handshake) has been read: no deadline
	err   error // why the connection was closed; every later Read returns it
}

// Read reads from the connection; it stops at a frame header over the bound,
// closes the connection and returns the error from then on.
func (c *boundedConn) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.Conn.Read(p)
	ok, tooBig := c.scan.scan(p[:n])
	if tooBig != nil {
		c.err = tooBig
		c.bound.log.Warn("connection closed: a frame is over the bound", "port", c.bound.port,
			"peer", c.RemoteAddr().String(), "claimed", c.scan.claimed, "max", c.bound.max)
		c.Conn.Close()
		if ok == 0 {
			return 0, c.err
		}
		return ok, nil
	}
	if !c.ready && c.scan.handshook() {
		c.ready = true
		c.Conn.SetReadDeadline(time.Time{})
	}
	var ne net.Error
	if !c.ready && errors.As(err, &ne) && ne.Timeout() {
		c.err = fmt.Errorf("no ZMTP handshake within %v", c.bound.handshake)
		c.bound.log.Warn("connection closed: no handshake", "port", c.bound.port,
			"peer", c.RemoteAddr().String(), "timeout", c.bound.handshake)
		c.Conn.Close()
	}
	return n, err
}

// flagLong marks a ZMTP 3 frame whose size takes 8 bytes, big-endian,
// instead of 1.
const flagLong = 0x02

// frameScanner follows the ZMTP 3 framing of a byte stream: the greeting,
// then frames of a flags byte, a 1- or 8-byte size and a body.
type frameScanner struct {
	max     uint64
	skip    uint64  // bytes of greeting or body still to pass
	hdr     [9]byte // the header being read
	hdrLen  int     // bytes of hdr read so far
	frames  int     // frame headers read so far
	claimed uint64  // the size of the last header
}

// scan follows b, the next bytes of the stream. It returns len(b), or,
// when a header in b claims more than the bound, the offset in b where that
// header starts and an error.
func (s *frameScanner) scan(b []byte) (int, error) {
	for i := 0; i < len(b); {
		if s.skip > 0 {
			step := min(s.skip, uint64(len(b)-i))
			s.skip -= step
			i += int(step)
			continue
		}
		s.hdr[s.hdrLen] = b[i]
		s.hdrLen++
		i++
		need := 2
		if s.hdr[0]&flagLong != 0 {
			need = 9
		}
		if s.hdrLen < need {
			continue
		}
		s.claimed = uint64(s.hdr[1])
		if need == 9 {
			s.claimed = binary.BigEndian.Uint64(s.hdr[1:9])
		}
		s.hdrLen = 0
		s.frames++
		if s.claimed > s.max {
			return max(i-need, 0), fmt.Errorf("frame of %d bytes is over the bound of %d", s.claimed, s.max)
		}
		s.skip = s.claimed
	}
	return len(b), nil
}

// handshook reports whether the first frame after the greeting, which
// ZMTP 3 makes a handshake command, has been read whole.
func (s *frameScanner) handshook() bool {
	return s.frames >= 2 || s.frames == 1 && s.skip == 0
}
