package comm

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/cells"
)

// TCP is the transport over plain TCP connections between the ranks: a
// broadcast's root copies its buffer to host memory and writes it to each
// other member in turn, and each member reads it and copies it to its
// device. It needs no NCCL and moves every byte through the hosts' memory
// and one socket per pair of ranks, at once (no overlap with the device's
// work): it is the transport of ranks on the emulator, and of machines
// without NCCL.
type TCP struct {
	ctl   *Control
	dev   *gpu.Device
	opts  Options
	ln    net.Listener
	addrs []string // every rank's listening address

	mu     sync.Mutex
	out    map[int]*tcpLink      // links this rank dialled: it sends on them
	in     map[int]*tcpLink      // links the others dialled: it reads from them
	inbox  map[int]chan net.Conn // accepted connections not yet taken, by rank
	closed bool

	sent, received atomic.Int64
	quit           chan struct{} // closed by Close: ends the watcher
}

// tcpLink is one connection with its buffered reader or writer.
type tcpLink struct {
	conn net.Conn
	r    *bufio.Reader
	w    *bufio.Writer
}

// NewTCP starts the TCP transport of this rank on dev: it listens on the
// address by which it reaches rank 0 and learns the others' through ctl
// (an AllGather: every rank must call NewTCP at the same point).
func NewTCP(ctx context.Context, ctl *Control, dev *gpu.Device, opts Options) (*TCP, error) {
	t := &TCP{ctl: ctl, dev: dev, opts: opts, out: map[int]*tcpLink{}, in: map[int]*tcpLink{},
		inbox: map[int]chan net.Conn{}, quit: make(chan struct{})}
	ln, err := net.Listen("tcp", net.JoinHostPort(ctl.LocalIP().String(), "0"))
	if err != nil {
		return nil, fmt.Errorf("comm: TCP transport of rank %d: %w", ctl.Rank(), err)
	}
	t.ln = ln
	all, err := ctl.AllGather(ctx, []byte(ln.Addr().String()))
	if err != nil {
		ln.Close()
		return nil, err
	}
	for _, a := range all {
		t.addrs = append(t.addrs, string(a))
	}
	go t.accept()
	go func() {
		// A stopped run closes every connection, which ends every wait.
		select {
		case <-ctl.Done():
			t.Close()
		case <-t.quit:
		}
	}()
	return t, nil
}

// Name returns "tcp".
func (t *TCP) Name() string { return "tcp" }

// accept takes the connections the other ranks dial: each starts with
// the dialler's rank.
func (t *TCP) accept() {
	for {
		conn, err := t.ln.Accept()
		if err != nil {
			return
		}
		var hdr [4]byte
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.ReadFull(conn, hdr[:]); err != nil {
			conn.Close()
			continue
		}
		_ = conn.SetReadDeadline(time.Time{})
		from := int(binary.LittleEndian.Uint32(hdr[:]))
		t.mu.Lock()
		if t.closed || from >= len(t.addrs) {
			t.mu.Unlock()
			conn.Close()
			continue
		}
		ch := t.box(from)
		t.mu.Unlock()
		ch <- conn
	}
}

// box returns the inbox of connections from rank. t.mu is held.
func (t *TCP) box(rank int) chan net.Conn {
	ch, ok := t.inbox[rank]
	if !ok {
		ch = make(chan net.Conn, 1)
		t.inbox[rank] = ch
	}
	return ch
}

// to returns the link on which this rank sends to rank, dialling it the
// first time.
func (t *TCP) to(ctx context.Context, rank int) (*tcpLink, error) {
	t.mu.Lock()
	l, ok := t.out[rank]
	t.mu.Unlock()
	if ok {
		return l, nil
	}
	d := net.Dialer{Timeout: t.opts.timeout()}
	conn, err := d.DialContext(ctx, "tcp", t.addrs[rank])
	if err != nil {
		return nil, err
	}
	var hdr [4]byte
	binary.LittleEndian.PutUint32(hdr[:], uint32(t.ctl.Rank()))
	if _, err := conn.Write(hdr[:]); err != nil {
		conn.Close()
		return nil, err
	}
	l = &tcpLink{conn: conn, w: bufio.NewWriterSize(conn, 1<<20)}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		conn.Close()
		return nil, net.ErrClosed
	}
	t.out[rank] = l
	return l, nil
}

// from returns the link on which this rank reads what rank sends, waiting
// for rank to dial it the first time.
func (t *TCP) from(ctx context.Context, rank int, deadline time.Time) (*tcpLink, error) {
	t.mu.Lock()
	l, ok := t.in[rank]
	ch := t.box(rank)
	t.mu.Unlock()
	if ok {
		return l, nil
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case conn := <-ch:
		l = &tcpLink{conn: conn, r: bufio.NewReaderSize(conn, 1<<20)}
		t.mu.Lock()
		t.in[rank] = l
		t.mu.Unlock()
		return l, nil
	case <-t.ctl.Done():
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, os.ErrDeadlineExceeded
	}
}

// Group returns the group of members; it needs no exchange.
func (t *TCP) Group(_ context.Context, members []int) (Group, error) {
	me, err := checkMembers(members, t.ctl.Rank(), t.ctl.Size())
	if err != nil {
		return nil, err
	}
	return &tcpGroup{t: t, members: append([]int(nil), members...), me: me}, nil
}

// Join does nothing: a TCP broadcast has ended when it returns.
func (t *TCP) Join() error { return nil }

// Fence waits for the device (a broadcast has ended when it returns).
func (t *TCP) Fence(ctx context.Context) error {
	if err := interrupted(t.ctl, ctx); err != nil {
		return err
	}
	return t.dev.Synchronize()
}

// Abort closes every connection: a broadcast in flight fails.
func (t *TCP) Abort() { t.Close() }

// Traffic returns the payload bytes sent as a root and received.
func (t *TCP) Traffic() (sent, received int64) { return t.sent.Load(), t.received.Load() }

// Close closes the listener and every connection.
func (t *TCP) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	t.ln.Close()
	for _, m := range []map[int]*tcpLink{t.out, t.in} {
		for _, l := range m {
			l.conn.Close()
		}
	}
	for _, ch := range t.inbox {
		select {
		case conn := <-ch:
			conn.Close()
		default:
		}
	}
	close(t.quit)
	return nil
}

// fail turns a failed send or receive into the run's stop: the reason the
// run stopped already, the timeout, or this failure, which then stops the
// run on every rank. A connection that a peer closed is most often a run
// that stopped elsewhere: the control plane's word on it is awaited a
// moment, so that the rank reports the cause rather than the symptom.
func (t *TCP) fail(ctx context.Context, what string, err error) error {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		select {
		case <-t.ctl.Done():
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
	if e := interrupted(t.ctl, ctx); e != nil {
		return e
	}
	reason := fmt.Sprintf("%s: %v", what, err)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		reason = fmt.Sprintf("%s took longer than %v (a rank that hangs, or a link that is down)", what, t.opts.timeout())
	}
	return abort(t.ctl, reason)
}

// tcpGroup is a group of the TCP transport.
type tcpGroup struct {
	t       *TCP
	members []int
	me      int
}

func (g *tcpGroup) Rank() int { return g.me }
func (g *tcpGroup) Size() int { return len(g.members) }

// Broadcast sends root's buffer to each other member in turn (root) or
// reads it from root (the others), each wait bounded by the timeout.
func (g *tcpGroup) Broadcast(ctx context.Context, buf *cells.Buffer, root int) error {
	t := g.t
	if root < 0 || root >= len(g.members) {
		return fmt.Errorf("comm: broadcast from member %d of a group of %d", root, len(g.members))
	}
	if len(g.members) == 1 {
		return nil
	}
	size := int64(buf.Len()) * 4
	deadline := time.Now().Add(t.opts.timeout())
	if g.me == root {
		values, err := buf.ToInt32s()
		if err != nil {
			return err
		}
		payload := make([]byte, 8+size)
		binary.LittleEndian.PutUint64(payload, uint64(size))
		for i, v := range values {
			binary.LittleEndian.PutUint32(payload[8+4*i:], uint32(v))
		}
		for i, m := range g.members {
			if i == root {
				continue
			}
			what := fmt.Sprintf("rank %d sending %d bytes to rank %d", t.ctl.Rank(), size, m)
			l, err := t.to(ctx, m)
			if err != nil {
				return t.fail(ctx, what, err)
			}
			_ = l.conn.SetWriteDeadline(deadline)
			if _, err := l.w.Write(payload); err == nil {
				err = l.w.Flush()
			}
			if err != nil {
				return t.fail(ctx, what, err)
			}
		}
		t.sent.Add(size)
		return nil
	}
	from := g.members[root]
	what := fmt.Sprintf("rank %d receiving %d bytes from rank %d", t.ctl.Rank(), size, from)
	l, err := t.from(ctx, from, deadline)
	if err != nil {
		return t.fail(ctx, what, err)
	}
	_ = l.conn.SetReadDeadline(deadline)
	payload := make([]byte, 8+size)
	if _, err := io.ReadFull(l.r, payload[:8]); err != nil {
		return t.fail(ctx, what, err)
	}
	if got := int64(binary.LittleEndian.Uint64(payload)); got != size {
		return t.fail(ctx, what, errors.New("rank "+strconv.Itoa(from)+" sent "+strconv.FormatInt(got, 10)+" bytes: the ranks disagree on the layout"))
	}
	if _, err := io.ReadFull(l.r, payload[8:]); err != nil {
		return t.fail(ctx, what, err)
	}
	values := make([]int32, buf.Len())
	for i := range values {
		values[i] = int32(binary.LittleEndian.Uint32(payload[8+4*i:]))
	}
	if err := buf.CopyInt32s(values); err != nil {
		return err
	}
	t.received.Add(size)
	return nil
}
