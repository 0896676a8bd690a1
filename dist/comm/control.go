package comm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pathnotes/pathnotes/internal/atomicfile"
)

// Control is a run's control plane: a TCP connection from every rank to
// rank 0, made by the rendezvous (Connect), over which the ranks exchange
// small messages (AllGather: NCCL's unique ids, the TCP transport's
// addresses, the result's files) and by which a rank that stops tells the
// others. A rank that calls Abort (an interrupt, an error), and a rank
// whose connection drops before it said goodbye (its process died, or its
// host), stop the run: every rank's Done channel closes and Err says which
// rank stopped it and why. Rank 0 relays; if rank 0 itself goes, the
// others see their connection drop.
type Control struct {
	rank, size int
	key        string
	localIP    net.IP
	timeout    time.Duration // bounds each AllGather

	done     chan struct{} // closed when the run is stopped
	stopOnce sync.Once
	stopErr  *StopError

	mu      sync.Mutex
	seq     int                    // the next AllGather's number
	results map[int]chan [][]byte  // AllGather results by number
	parts   map[int]map[int][]byte // rank 0: contributions by number and rank
	closing bool                   // Close has begun: a dropped connection is no failure
	byes    map[int]bool           // rank 0: ranks that said goodbye
	peers   map[int]*peer          // rank 0: the other ranks
	up      *peer                  // ranks > 0: the connection to rank 0
	ln      net.Listener           // rank 0
	file    string                 // rank 0: the rendezvous file it wrote
	left    chan struct{}          // rank 0: closed when every peer is gone
	gone    int                    // rank 0: peers whose reader ended
}

// StopError is why a run stopped: the rank that stopped it and its
// reason.
type StopError struct {
	Rank   int
	Reason string
}

func (e *StopError) Error() string {
	return fmt.Sprintf("rank %d stopped the run: %s", e.Rank, e.Reason)
}

// message is one line of the control protocol (JSON).
type message struct {
	Kind   string   `json:"kind"` // hello, welcome, gather, gathered, abort, bye
	Rank   int      `json:"rank"`
	Size   int      `json:"size,omitempty"`
	Key    string   `json:"key,omitempty"`
	Seq    int      `json:"seq,omitempty"`
	Data   []byte   `json:"data,omitempty"`
	All    [][]byte `json:"all,omitempty"`
	Reason string   `json:"reason,omitempty"`
}

// peer is one connection with its encoder and decoder.
type peer struct {
	rank int
	conn net.Conn
	mu   sync.Mutex // serialises writes
	enc  *json.Encoder
	dec  *json.Decoder
}

func newPeer(rank int, c net.Conn) *peer {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetKeepAlive(true)
		_ = tc.SetKeepAlivePeriod(10 * time.Second)
	}
	return &peer{rank: rank, conn: c, enc: json.NewEncoder(c), dec: json.NewDecoder(bufio.NewReader(c))}
}

// send writes one message, giving up after a minute (a peer that reads
// nothing).
func (p *peer) send(m message) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.conn.SetWriteDeadline(time.Now().Add(time.Minute))
	return p.enc.Encode(m)
}

// Rendezvous says where the ranks meet: Addr (host:port, rank 0 listens
// there and the others connect to it), or File, a path on a file system
// every rank sees, where rank 0 writes the address it listens on.
type Rendezvous struct {
	Addr string
	File string
}

// Connect runs the rendezvous for rank l.Rank of l.Size and returns the
// control plane once every rank has joined. key identifies the run (the
// command and its arguments): a rank with another key is refused, and the
// run stops, so that two jobs on one port are not mixed. timeout bounds
// the wait for the others.
func Connect(ctx context.Context, l Launch, rv Rendezvous, key string, timeout time.Duration) (*Control, error) {
	c := &Control{rank: l.Rank, size: l.Size, key: key, timeout: timeout, done: make(chan struct{}),
		results: map[int]chan [][]byte{}, parts: map[int]map[int][]byte{}}
	if l.Size == 1 {
		c.localIP = net.IPv4(127, 0, 0, 1)
		return c, nil
	}
	if rv.Addr == "" && rv.File == "" {
		return nil, errors.New("comm: several ranks need a rendezvous: set MASTER_ADDR (and MASTER_PORT), or give a file on a shared path")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var err error
	if l.Rank == 0 {
		err = c.serve(ctx, rv)
	} else {
		err = c.join(ctx, rv)
	}
	if err != nil {
		c.shut()
		return nil, err
	}
	return c, nil
}

// Rank returns this rank's number.
func (c *Control) Rank() int { return c.rank }

// Size returns the number of ranks.
func (c *Control) Size() int { return c.size }

// LocalIP returns the address by which this rank reaches rank 0 (rank 0:
// by which the others reached it), for the data connections of the TCP
// transport.
func (c *Control) LocalIP() net.IP { return c.localIP }

// Done is closed when the run stops (Abort here or on another rank, or a
// lost connection).
func (c *Control) Done() <-chan struct{} { return c.done }

// Err returns why the run stopped (a *StopError), or nil.
func (c *Control) Err() error {
	select {
	case <-c.done:
		return c.stopErr
	default:
		return nil
	}
}

// stop records why the run stops, once, and closes Done. It reports
// whether this call was the first.
func (c *Control) stop(rank int, reason string) bool {
	first := false
	c.stopOnce.Do(func() {
		c.stopErr = &StopError{Rank: rank, Reason: reason}
		close(c.done)
		first = true
	})
	return first
}

// Abort stops the run for every rank with reason, in this rank's name.
// Rank 0 tells every other rank; another rank tells rank 0, which relays.
// Aborting a stopped run does nothing.
func (c *Control) Abort(reason string) {
	if !c.stop(c.rank, reason) {
		return
	}
	c.tell(message{Kind: "abort", Rank: c.rank, Reason: reason}, -1)
}

// tell sends m to rank 0 (from another rank) or to every peer but skip
// (from rank 0).
func (c *Control) tell(m message, skip int) {
	c.mu.Lock()
	up := c.up
	var peers []*peer
	for r, p := range c.peers {
		if r != skip {
			peers = append(peers, p)
		}
	}
	c.mu.Unlock()
	if up != nil {
		_ = up.send(m)
	}
	for _, p := range peers {
		_ = p.send(m)
	}
}

// AllGather sends data to every rank and returns what every rank sent,
// indexed by rank. Every rank must call it the same number of times, in
// the same order. It fails when the run stops or ctx ends first, and
// stops the run when the others have not all come within Connect's
// timeout (a rank that hangs is as bad as one that died).
func (c *Control) AllGather(ctx context.Context, data []byte) ([][]byte, error) {
	if data == nil {
		data = []byte{}
	}
	c.mu.Lock()
	seq := c.seq
	c.seq++
	ch := c.result(seq)
	c.mu.Unlock()
	if c.size == 1 {
		return [][]byte{data}, nil
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	if c.rank == 0 {
		c.contribute(0, seq, data)
	} else if err := c.up.send(message{Kind: "gather", Rank: c.rank, Seq: seq, Data: data}); err != nil {
		c.stop(0, "the connection to rank 0 failed: "+err.Error())
	}
	timer := time.NewTimer(c.timeout)
	defer timer.Stop()
	select {
	case all := <-ch:
		c.mu.Lock()
		delete(c.results, seq)
		c.mu.Unlock()
		return all, nil
	case <-c.done:
		return nil, c.stopErr
	case <-ctx.Done():
		return nil, fmt.Errorf("comm: waiting for the other ranks: %w", context.Cause(ctx))
	case <-timer.C:
		who := "some rank"
		if c.rank == 0 {
			who = "rank " + c.absent(seq)
		}
		c.Abort(fmt.Sprintf("%s did not reach exchange %d with the others within %v (a rank that hangs, or a link that is down): the run took longer than %v there",
			who, seq, c.timeout, c.timeout))
		return nil, c.stopErr
	}
}

// absent lists the ranks whose part of AllGather seq has not come (rank
// 0).
func (c *Control) absent(seq int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var m []string
	for r := range c.size {
		if _, ok := c.parts[seq][r]; !ok {
			m = append(m, strconv.Itoa(r))
		}
	}
	return strings.Join(m, ", ")
}

// result returns the channel of AllGather number seq. c.mu is held.
func (c *Control) result(seq int) chan [][]byte {
	ch, ok := c.results[seq]
	if !ok {
		ch = make(chan [][]byte, 1)
		c.results[seq] = ch
	}
	return ch
}

// contribute records rank's part of AllGather seq (rank 0) and, once
// every rank's is in, sends the whole to the others and delivers it here.
func (c *Control) contribute(rank, seq int, data []byte) {
	c.mu.Lock()
	parts := c.parts[seq]
	if parts == nil {
		parts = map[int][]byte{}
		c.parts[seq] = parts
	}
	parts[rank] = data
	if len(parts) < c.size {
		c.mu.Unlock()
		return
	}
	delete(c.parts, seq)
	all := make([][]byte, c.size)
	for r, d := range parts {
		all[r] = d
	}
	ch := c.result(seq)
	c.mu.Unlock()
	c.tell(message{Kind: "gathered", Seq: seq, All: all}, -1)
	ch <- all
}

// Close ends the run's control plane after its last AllGather: every rank
// says goodbye, and rank 0 waits (a few seconds at most) for the others'
// goodbyes before it closes, so that no rank takes its leaving for a
// failure.
func (c *Control) Close() error {
	c.mu.Lock()
	c.closing = true
	up, left := c.up, c.left
	c.mu.Unlock()
	if up != nil {
		_ = up.send(message{Kind: "bye", Rank: c.rank})
	}
	if left != nil {
		select {
		case <-left:
		case <-time.After(5 * time.Second):
		}
	}
	c.shut()
	return nil
}

// shut closes every connection and the listener, and removes the
// rendezvous file rank 0 wrote.
func (c *Control) shut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closing = true
	if c.up != nil {
		c.up.conn.Close()
	}
	for _, p := range c.peers {
		p.conn.Close()
	}
	if c.ln != nil {
		c.ln.Close()
	}
	if c.file != "" {
		os.Remove(c.file)
	}
}

// serve is rank 0's rendezvous: listen, take every other rank's hello,
// then welcome them all.
func (c *Control) serve(ctx context.Context, rv Rendezvous) error {
	var err error
	if rv.Addr != "" {
		c.ln, err = net.Listen("tcp", rv.Addr)
		if err != nil {
			// MASTER_ADDR may name this host by an address it cannot bind
			// to (behind a NAT, a name for another interface): listen on
			// every interface at that port instead.
			_, port, _ := net.SplitHostPort(rv.Addr)
			if ln, e := net.Listen("tcp", ":"+port); e == nil {
				c.ln, err = ln, nil
			}
		}
	} else {
		c.ln, err = net.Listen("tcp", ":0")
	}
	if err != nil {
		return fmt.Errorf("comm: rank 0 cannot listen for the others: %w", err)
	}
	if rv.File != "" {
		host, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("comm: the rendezvous file needs this host's name: %w", err)
		}
		port := c.ln.Addr().(*net.TCPAddr).Port
		addr := net.JoinHostPort(host, strconv.Itoa(port)) + "\n" + c.key + "\n"
		if err := atomicfile.WriteFile(rv.File, []byte(addr), 0o644); err != nil {
			return fmt.Errorf("comm: writing the rendezvous file: %w", err)
		}
		c.file = rv.File
	}
	c.peers, c.byes = map[int]*peer{}, map[int]bool{}
	c.left = make(chan struct{})
	go func() {
		<-ctx.Done()
		c.mu.Lock()
		joined := len(c.peers)
		c.mu.Unlock()
		if joined < c.size-1 {
			c.ln.Close() // ends the accept loop below
		}
	}()
	for {
		c.mu.Lock()
		joined := len(c.peers)
		c.mu.Unlock()
		if joined == c.size-1 {
			break
		}
		conn, err := c.ln.Accept()
		if err != nil {
			return c.refuse(fmt.Sprintf("only %d of the %d other ranks joined (%v): missing %s", joined, c.size-1, context.Cause(ctx), c.missing()))
		}
		p := newPeer(-1, conn)
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		var hello message
		if err := p.dec.Decode(&hello); err != nil || hello.Kind != "hello" {
			conn.Close() // not one of ours: a port scan, a stale client
			continue
		}
		_ = conn.SetReadDeadline(time.Time{})
		var why string
		c.mu.Lock()
		switch {
		case hello.Key != c.key:
			why = fmt.Sprintf("rank %d runs another command than rank 0 (its arguments differ)", hello.Rank)
		case hello.Size != c.size:
			why = fmt.Sprintf("rank %d counts %d ranks, rank 0 counts %d", hello.Rank, hello.Size, c.size)
		case hello.Rank < 1 || hello.Rank >= c.size:
			why = fmt.Sprintf("a rank says it is number %d of %d", hello.Rank, c.size)
		case c.peers[hello.Rank] != nil:
			why = fmt.Sprintf("two ranks say they are number %d", hello.Rank)
		}
		if why == "" {
			p.rank = hello.Rank
			c.peers[p.rank] = p
			if c.localIP == nil {
				c.localIP = conn.LocalAddr().(*net.TCPAddr).IP
			}
		}
		c.mu.Unlock()
		if why != "" {
			_ = p.send(message{Kind: "abort", Rank: 0, Reason: why})
			conn.Close()
			err := c.refuse(why)
			c.turnAway(ctx, why, joined+1)
			return err
		}
	}
	c.mu.Lock()
	peers := c.peers
	c.mu.Unlock()
	for _, p := range peers {
		go c.serveReader(p)
	}
	c.tell(message{Kind: "welcome"}, -1)
	c.ln.Close() // every rank is in: nobody else may join
	return nil
}

// turnAway answers the ranks still arriving after a refusal, for two
// seconds at most, with its reason: closing the listener at once would
// reset the connections still queued on it, and those ranks would learn
// only that rank 0 went away. told counts the ranks already told.
func (c *Control) turnAway(ctx context.Context, why string, told int) {
	tl, ok := c.ln.(*net.TCPListener)
	if !ok {
		return
	}
	deadline := time.Now().Add(2 * time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = tl.SetDeadline(deadline)
	for told < c.size-1 {
		conn, err := tl.Accept()
		if err != nil {
			return
		}
		p := newPeer(-1, conn)
		_ = conn.SetReadDeadline(deadline)
		var hello message
		if p.dec.Decode(&hello) == nil && hello.Kind == "hello" {
			_ = p.send(message{Kind: "abort", Rank: 0, Reason: why})
			told++
		}
		conn.Close()
	}
}

// missing lists the ranks that have not joined. c.mu is not held.
func (c *Control) missing() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var m []string
	for r := 1; r < c.size; r++ {
		if c.peers[r] == nil {
			m = append(m, strconv.Itoa(r))
		}
	}
	return strings.Join(m, ", ")
}

// refuse stops the rendezvous: the ranks that joined are told why.
func (c *Control) refuse(why string) error {
	c.stop(0, why)
	c.tell(message{Kind: "abort", Rank: 0, Reason: why}, -1)
	return fmt.Errorf("comm: rendezvous: %s", why)
}

// serveReader is rank 0's reader of one other rank's messages.
func (c *Control) serveReader(p *peer) {
	defer func() {
		c.mu.Lock()
		c.gone++
		if c.gone == len(c.peers) {
			close(c.left)
		}
		c.mu.Unlock()
	}()
	for {
		var m message
		if err := p.dec.Decode(&m); err != nil {
			c.mu.Lock()
			fine := c.closing || c.byes[p.rank]
			c.mu.Unlock()
			if !fine && c.stop(p.rank, "its connection to rank 0 was lost (its process exited or was killed, or its host is gone)") {
				c.tell(message{Kind: "abort", Rank: p.rank, Reason: c.stopErr.Reason}, p.rank)
			}
			return
		}
		switch m.Kind {
		case "gather":
			c.contribute(p.rank, m.Seq, m.Data)
		case "abort":
			if c.stop(p.rank, m.Reason) {
				c.tell(message{Kind: "abort", Rank: p.rank, Reason: m.Reason}, p.rank)
			}
		case "bye":
			c.mu.Lock()
			c.byes[p.rank] = true
			c.mu.Unlock()
		}
	}
}

// join is the rendezvous of a rank other than 0: find rank 0, connect
// (trying again until ctx ends: rank 0 may start later), say hello, and
// wait for the welcome.
func (c *Control) join(ctx context.Context, rv Rendezvous) error {
	var conn net.Conn
	var last error
	for conn == nil {
		addr := rv.Addr
		if rv.File != "" {
			addr, last = readRendezvous(rv.File, c.key)
		}
		if addr != "" {
			d := net.Dialer{Timeout: 5 * time.Second}
			conn, last = d.DialContext(ctx, "tcp", addr)
		}
		if conn != nil {
			break
		}
		select {
		case <-ctx.Done():
			where := rv.Addr
			if rv.File != "" {
				where = "the address in " + rv.File
			}
			return fmt.Errorf("comm: rank %d could not reach rank 0 at %s: %v (last: %v)", c.rank, where, context.Cause(ctx), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
	c.up = newPeer(0, conn)
	c.localIP = conn.LocalAddr().(*net.TCPAddr).IP
	if err := c.up.send(message{Kind: "hello", Rank: c.rank, Size: c.size, Key: c.key}); err != nil {
		return fmt.Errorf("comm: rank %d: hello to rank 0: %w", c.rank, err)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetReadDeadline(time.Now()) })
	var m message
	err := c.up.dec.Decode(&m)
	stop()
	switch {
	case err != nil:
		return fmt.Errorf("comm: rank %d: waiting for the other ranks to join: %w", c.rank, err)
	case m.Kind == "abort":
		// Another rank stopped the run before this one joined: the same
		// StopError as a stop after the rendezvous.
		c.stop(m.Rank, m.Reason)
		return fmt.Errorf("comm: rendezvous: %w", &StopError{Rank: m.Rank, Reason: m.Reason})
	case m.Kind != "welcome":
		return fmt.Errorf("comm: rank %d: rank 0 answered %q to hello", c.rank, m.Kind)
	}
	_ = conn.SetReadDeadline(time.Time{})
	go c.joinReader()
	return nil
}

// readRendezvous reads rank 0's address from the rendezvous file, if it
// is there and written by a run with this key.
func readRendezvous(path, key string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s does not exist yet", path)
	}
	if err != nil {
		return "", err
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 2 || lines[1] != key {
		return "", fmt.Errorf("%s is another run's", path)
	}
	return lines[0], nil
}

// joinReader reads rank 0's messages on a rank other than 0.
func (c *Control) joinReader() {
	for {
		var m message
		if err := c.up.dec.Decode(&m); err != nil {
			c.mu.Lock()
			fine := c.closing
			c.mu.Unlock()
			if !fine {
				c.stop(0, "the connection to rank 0 was lost (rank 0 exited or was killed, or its host is gone)")
			}
			return
		}
		switch m.Kind {
		case "gathered":
			c.mu.Lock()
			ch := c.result(m.Seq)
			c.mu.Unlock()
			ch <- m.All
		case "abort":
			c.stop(m.Rank, m.Reason)
		}
	}
}
