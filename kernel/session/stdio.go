package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
	"unicode/utf8"
)

// flushEvery bounds how long printed text waits before it is sent: the first
// write after a quiet period goes out at once, later ones are batched so that
// a loop printing thousands of lines sends a few messages a second, not
// thousands.
const flushEvery = 50 * time.Millisecond

// maxKept bounds the buffer of pending text that a stream keeps for reuse.
const maxKept = 64 << 10

// stream carries one of the interpreter's standard streams to the front end.
//
// Interpreted code writes to the write end of an OS pipe, which is an
// *os.File, so that os.Stdout keeps its type for code that uses it as one.
// A goroutine reads the pipe and sends what it reads to the Output of the
// current cell, so text printed by a long cell (or by a goroutine after its
// cell ended) appears while it is printed.
type stream struct {
	name   string
	r, w   *os.File
	target func() Output // where text goes: the current cell's output

	mu      sync.Mutex // guards pending
	sendMu  sync.Mutex // serialises sends; taken under mu
	pending []byte     // read from the pipe, not sent yet
	kick    chan struct{}
	done    chan struct{} // closed when the reader has stopped
	stopped chan struct{} // closed to stop the batching goroutine
	syncer                // how sync learns that the pipe is read (stdio_unix.go, stdio_windows.go)
}

func newStream(name string, target func() Output) (*stream, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("session: creating the %s pipe: %w", name, err)
	}
	st := &stream{
		name: name, r: r, w: w, target: target,
		kick:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
		syncer:  newSyncer(),
	}
	go st.read()
	go st.batch()
	return st, nil
}

// wake tells the batching goroutine that text has come.
func (st *stream) wake() {
	select {
	case st.kick <- struct{}{}:
	default:
	}
}

// batch sends pending text at most every flushEvery.
func (st *stream) batch() {
	for {
		select {
		case <-st.stopped:
			return
		case <-st.kick:
		}
		st.mu.Lock()
		st.sendLocked(false)
		st.mu.Unlock()
		select {
		case <-st.stopped:
			return
		case <-time.After(flushEvery):
		}
	}
}

// sendLocked sends pending text. Unless all is true it keeps back an
// incomplete UTF-8 sequence at the end, so that no message splits a rune.
// It is called with mu held, and lets go of it while the text goes out
// (under sendMu, taken first, so that sends keep their order): the pipe is
// read on meanwhile.
func (st *stream) sendLocked(all bool) {
	n := len(st.pending)
	if !all {
		n = completeUTF8(st.pending)
	}
	if n == 0 {
		return
	}
	text := string(st.pending[:n])
	if cap(st.pending) > maxKept {
		st.pending = append([]byte(nil), st.pending[n:]...) // a cell that printed much leaves no large buffer
	} else {
		st.pending = append(st.pending[:0], st.pending[n:]...)
	}
	st.sendMu.Lock()
	st.mu.Unlock()
	defer func() {
		st.sendMu.Unlock()
		st.mu.Lock()
	}()
	if out := st.target(); out != nil {
		out.Stream(st.name, text)
	}
}

// awaitSendLocked waits, with mu held on entry and on return, until a send
// already under way has gone out. The batching goroutine takes its text out
// of pending before it sends it, so a sync that finds pending empty may run
// while that text is still on its way; without this wait, text printed
// before the sync could reach the front end after it (after the cell's
// reply).
func (st *stream) awaitSendLocked() {
	st.mu.Unlock()
	st.sendMu.Lock()
	st.sendMu.Unlock()
	st.mu.Lock()
}

// completeUTF8 returns the length of the longest prefix of b that does not
// end inside a multi-byte UTF-8 sequence.
func completeUTF8(b []byte) int {
	for back := 1; back <= utf8.UTFMax && back <= len(b); back++ {
		c := b[len(b)-back]
		if c < utf8.RuneSelf {
			return len(b) // ASCII: nothing is cut
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-back:]) {
				return len(b)
			}
			return len(b) - back
		}
	}
	return len(b)
}

// close stops the stream after sending what is left.
func (st *stream) close() error {
	err := st.w.Close()
	<-st.done
	close(st.stopped)
	if cerr := st.r.Close(); err == nil {
		err = cerr
	}
	return err
}

// errNoStdin is returned by reads of standard input outside a cell.
var errNoStdin = errors.New("standard input is not available outside a running cell")

// stdin is the interpreter's standard input: each read that finds its buffer
// empty asks the current cell's Output for a line.
type stdin struct {
	s   *Session
	mu  sync.Mutex
	buf []byte
}

// Read implements io.Reader.
func (in *stdin) Read(p []byte) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.buf) == 0 {
		out := in.s.runningOutput()
		if out == nil {
			return 0, errNoStdin
		}
		in.s.flushStreams() // the prompt printed before the read shows first
		line, err := out.Input("", false)
		if err != nil {
			return 0, fmt.Errorf("reading standard input: %w", err)
		}
		in.buf = append(in.buf, line...)
		in.buf = append(in.buf, '\n')
	}
	n := copy(p, in.buf)
	in.buf = in.buf[n:]
	return n, nil
}

// drop forgets text typed for an earlier cell and not read by it.
func (in *stdin) drop() {
	in.mu.Lock()
	in.buf = nil
	in.mu.Unlock()
}

var _ io.Reader = (*stdin)(nil)
