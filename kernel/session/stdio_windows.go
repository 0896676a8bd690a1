//go:build windows

package session

import (
	"bytes"
	"sync"
	"time"
)

// On Windows a pipe cannot be read without blocking, so sync writes a
// marker through the pipe and waits until the reader has met it.

// syncMarker is written into a stream's pipe to learn when everything written
// before it has been read and sent. It cannot be produced by accident: it
// contains a NUL byte and a random-looking tag.
var syncMarker = []byte("\x00pathnotes-sync-7f3a9c\x00")

// syncTimeout bounds the wait for a marker: a pipe the reader cannot drain.
const syncTimeout = 2 * time.Second

// syncer is what a stream needs for sync: the markers the reader met.
type syncer struct {
	syncMu sync.Mutex    // one sync at a time
	synced chan struct{} // receives one value per marker read
}

func newSyncer() syncer { return syncer{synced: make(chan struct{}, 1)} }

// read copies the pipe into pending until the write end is closed.
func (st *stream) read() {
	defer close(st.done)
	buf := make([]byte, 32<<10)
	for {
		n, err := st.r.Read(buf)
		if n > 0 {
			st.mu.Lock()
			st.pending = append(st.pending, buf[:n]...)
			markers := 0
			for {
				i := bytes.Index(st.pending, syncMarker)
				if i < 0 {
					break
				}
				rest := append([]byte(nil), st.pending[i+len(syncMarker):]...)
				st.pending = st.pending[:i]
				st.sendLocked(true)
				st.pending = rest
				markers++
			}
			st.mu.Unlock()
			for ; markers > 0; markers-- {
				select { // never block the reader on a waiter that gave up
				case st.synced <- struct{}{}:
				default:
				}
			}
			st.wake()
		}
		if err != nil {
			st.mu.Lock()
			st.sendLocked(true)
			st.mu.Unlock()
			return
		}
	}
}

// sync returns once everything written to the stream before the call has
// been sent, or after syncTimeout (a pipe the reader cannot drain).
func (st *stream) sync() {
	st.syncMu.Lock()
	defer st.syncMu.Unlock()
	if _, err := st.w.Write(syncMarker); err != nil {
		return // closed
	}
	select {
	case <-st.synced:
	case <-st.done:
	case <-time.After(syncTimeout):
	}
}
