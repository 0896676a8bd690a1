package kernel

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pathnotes/pathnotes/internal/memlimit"
)

// What a peer of the kernel's ports may make it hold, and for how long.
// A Jupyter request is five or six small frames after its identities
// (the delimiter, the signature, then header, parent header, metadata and
// content as JSON) and any binary buffers; its signature covers the four
// JSON frames, so the kernel must read a message whole before it knows
// whether the sender has the key. The bounds below keep what it reads
// until then from ending the process.
const (
	// DefaultMaxFrame is the largest ZeroMQ frame, in bytes, that the
	// kernel accepts from a peer unless Options.MaxFrame or MaxFrameEnv
	// says otherwise.
	DefaultMaxFrame = 256 << 20
	// DefaultMaxMessage bounds the frames of one message together unless
	// Options.MaxMessage or MaxMessageEnv says otherwise: a cell or a
	// buffer as large as a frame may be, and room to spare.
	DefaultMaxMessage = 512 << 20
	// DefaultMaxUnverified bounds what all the connections that have not
	// yet sent a message with a good signature hold together, unless
	// Options.MaxUnverified or MaxUnverifiedEnv says otherwise; when the
	// memory the process may still allocate is less than eight times this,
	// the default is an eighth of that memory: what the connections that
	// go over the bound leave behind is garbage until the next collection,
	// and the address space the Go runtime maps runs ahead of its heap.
	DefaultMaxUnverified = 1 << 30
	// DefaultMaxConnections is the most connections one port keeps unless
	// Options.MaxConnections or MaxConnectionsEnv says otherwise.
	DefaultMaxConnections = 256
)

// The environment variables that set the bounds when the Options leave
// them 0. The sizes are numbers of bytes, or numbers followed by KiB, MiB
// or GiB ("64MiB").
const (
	MaxFrameEnv       = "PATHNOTES_MAX_FRAME"
	MaxMessageEnv     = "PATHNOTES_MAX_MESSAGE"
	MaxUnverifiedEnv  = "PATHNOTES_MAX_UNVERIFIED"
	MaxConnectionsEnv = "PATHNOTES_MAX_CONNECTIONS"
)

// freeHold is what a connection that has not yet sent a verified message
// may hold of the message it is reading without drawing on the budget
// that all such connections share: a front end's first request is
// smaller, so that peers holding the whole budget cannot keep a front end
// from connecting.
const freeHold = 64 << 10

// handshakeTimeout bounds the ZMTP greeting and security handshake of a
// new connection.
var handshakeTimeout = 10 * time.Second

// A message that has begun must keep coming: the kernel closes a
// connection that sends nothing for progressGrace in the middle of a
// message, or whose message, progressGrace after the kernel first waited
// for its rest, has come slower than minRate. Between messages a
// connection may stay quiet for as long as it likes.
const (
	progressGrace = 10 * time.Second
	minRate       = 16 << 10 // bytes a second
)

// wireLimits are the bounds of one kernel's ports (see Options).
type wireLimits struct {
	maxFrame   uint64
	maxMessage uint64
	maxConns   int
	unverified *budget // shared by the five ports
	handshake  time.Duration
	log        *slog.Logger
}

// newWireLimits reads the bounds from opts, the environment and the
// defaults, and logs them.
func newWireLimits(opts Options, log *slog.Logger) (wireLimits, error) {
	l := wireLimits{handshake: handshakeTimeout, log: log}
	var err error
	if l.maxFrame, err = setting("Options.MaxFrame", opts.MaxFrame, MaxFrameEnv, DefaultMaxFrame, parseSize); err != nil {
		return l, err
	}
	if l.maxMessage, err = setting("Options.MaxMessage", opts.MaxMessage, MaxMessageEnv, DefaultMaxMessage, parseSize); err != nil {
		return l, err
	}
	def := uint64(DefaultMaxUnverified)
	if avail, ok := memlimit.Available(); ok {
		def = min(def, avail.Bytes/8)
	}
	unverified, err := setting("Options.MaxUnverified", opts.MaxUnverified, MaxUnverifiedEnv, def, parseSize)
	if err != nil {
		return l, err
	}
	l.unverified = newBudget(unverified)
	conns, err := setting("Options.MaxConnections", int64(opts.MaxConnections), MaxConnectionsEnv, DefaultMaxConnections, parseCount)
	if err != nil {
		return l, err
	}
	if conns > 1<<20 {
		return l, fmt.Errorf("Options.MaxConnections %d is more than a million", conns)
	}
	l.maxConns = int(conns)
	log.Info("wire bounds", "max_frame", l.maxFrame, "max_message", l.maxMessage,
		"max_unverified", unverified, "max_connections", l.maxConns)
	return l, nil
}

// setting returns opt, named what, when it is positive, else the value of
// the environment variable env as parse reads it, else def.
func setting(what string, opt int64, env string, def uint64, parse func(string) (uint64, error)) (uint64, error) {
	switch {
	case opt < 0:
		return 0, fmt.Errorf("%s %d is negative", what, opt)
	case opt > 0:
		return uint64(opt), nil
	}
	if s := os.Getenv(env); s != "" {
		n, err := parse(s)
		if err != nil {
			return 0, fmt.Errorf("$%s: %w", env, err)
		}
		return n, nil
	}
	return def, nil
}

// parseSize reads a positive size: a number, or a number followed by
// KiB, MiB or GiB.
func parseSize(s string) (uint64, error) {
	num, mult := strings.TrimSpace(s), uint64(1)
	for suffix, m := range map[string]uint64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if strings.HasSuffix(num, suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, suffix)), m
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || n == 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a positive number, or a number of KiB, MiB or GiB", s)
	}
	return n * mult, nil
}

// parseCount reads a number of connections: a positive number, at most
// a million.
func parseCount(s string) (uint64, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil || n == 0 || n > 1<<20 {
		return 0, fmt.Errorf("%q is not a number of connections from 1 to %d", s, 1<<20)
	}
	return n, nil
}

// budget is an amount of memory that connections draw on and give back.
type budget struct {
	left atomic.Int64
}

func newBudget(n uint64) *budget {
	b := &budget{}
	b.left.Store(int64(min(n, 1<<62)))
	return b
}

// take draws n bytes, and reports whether there were as many left.
func (b *budget) take(n int64) bool {
	if b.left.Add(-n) < 0 {
		b.left.Add(n)
		return false
	}
	return true
}

// give returns n bytes.
func (b *budget) give(n int64) { b.left.Add(n) }
