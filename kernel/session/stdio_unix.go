//go:build unix

package session

import "github.com/pathnotes/pathnotes/internal/pipes"

// On Unix the pipe's read end is non-blocking (os.Pipe puts it in the
// runtime's poller), and every read of it happens under the stream's mutex:
// the reader's, when the poller says the pipe has text, and sync's, which
// reads what the pipe holds itself. Text written before a sync is then in
// the pipe or in pending when sync takes the mutex, or in a send already
// under way, and sync sends it at once or waits for that send: no marker
// through the pipe.

// syncer is what a stream needs for sync: a buffer for reads under mu.
type syncer struct {
	buf []byte
}

func newSyncer() syncer { return syncer{buf: make([]byte, 32<<10)} }

// maxPending bounds the text read and not sent: past it, the reader sends
// at once rather than at the batching goroutine's next turn, so that a cell
// that prints fast costs a bounded buffer.
const maxPending = 1 << 20

// maxSyncReads bounds the reads of one sync, so that a goroutine that
// prints without end cannot hold it: 64 reads of 32 KiB.
const maxSyncReads = 64

// read copies the pipe into pending until the write end is closed.
func (st *stream) read() {
	defer close(st.done)
	defer func() {
		st.mu.Lock()
		st.sendLocked(true)
		st.mu.Unlock()
	}()
	rc, err := st.r.SyscallConn()
	if err != nil {
		return
	}
	for open := true; open; {
		got := 0
		err := rc.Read(func(fd uintptr) bool {
			st.mu.Lock()
			defer st.mu.Unlock()
			got, open = st.readLocked(int(fd))
			return got > 0 || !open // nothing yet: wait for the poller
		})
		if err != nil {
			return
		}
		if got > 0 {
			st.wake()
		}
	}
}

// readLocked reads once from the pipe, without waiting, into pending. It
// returns the bytes read and whether the pipe is still open.
func (st *stream) readLocked(fd int) (n int, open bool) {
	n, open = pipes.ReadReady(fd, st.buf)
	if n > 0 {
		st.pending = append(st.pending, st.buf[:n]...)
		if len(st.pending) >= maxPending {
			st.sendLocked(false)
		}
	}
	return n, open
}

// sync sends everything written to the stream before the call.
func (st *stream) sync() {
	rc, err := st.r.SyscallConn()
	if err != nil {
		return // closed
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	rc.Control(func(fd uintptr) {
		for range maxSyncReads {
			if n, _ := st.readLocked(int(fd)); n == 0 {
				break
			}
		}
	})
	st.sendLocked(true)
	st.awaitSendLocked()
}
