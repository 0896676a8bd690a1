package driver

// Streams, events and registered host memory on the emulator. Work queued
// on a stream other than the default one runs as late as it may: when the
// host waits for it (SyncStream, SyncEvent, Elapsed, Synchronize, Free),
// or when work that must come after it runs (a WaitEvent of another
// stream). A program that reads a copy's result, or reuses its memory,
// before waiting for it thus sees the old contents, as it may on a card;
// and HostUnregister or HostFree of memory a queued copy still uses is an
// error here (on a card it is undefined). Under EmulatorShuffle the
// streams' work runs, when waited for, in a random order that their
// events allow.
//
// The default stream's work runs at once, unless EmulatorLazyDefault
// makes it a queue like the others (handle 0 in the context's streams):
// the model of a card's legacy default stream beside the non-blocking
// streams of NewStream, which it neither waits for nor makes wait.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
	"unsafe"

	"github.com/pathnotes/pathnotes/gpu/ptxemu"
)

// emuStream is a stream's queue: ops not run yet, and how many have run.
type emuStream struct {
	ops      []emuOp
	done     int  // ops run; op k (from 1) has run when done >= k
	flushing bool // running its ops: a wait that needs more of it is a deadlock
}

// emuOp is one queued operation; host is the host memory a copy uses, and
// a WaitEvent's op names the stream and op it waits for (after, the op's
// number from 1; 0: no wait). late marks an op that another device's
// WaitPeerEvent need not run: an event's record, or the write of a peer
// copy, whose source CopyPeerAsync has read already. A WaitValue's op
// has ready, which says whether its word has reached the value.
type emuOp struct {
	run   func() error
	host  []byte
	from  Stream
	after int
	late  bool
	ready func() bool
}

// emuEvent is an event: its latest record is op seq of stream (seq 0: on
// the default stream while it runs its work at once, or never recorded),
// and at is when that op ran.
type emuEvent struct {
	stream Stream
	seq    int
	at     time.Time
}

// CUDA result codes of registered memory.
const (
	cuHostAlreadyRegistered = 712
	cuHostNotRegistered     = 713
)

func init() {
	cuNames[cuHostAlreadyRegistered] = "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"
	cuNames[cuHostNotRegistered] = "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"
}

func (c *emuContext) NewStream() (Stream, error) {
	if err := c.check(); err != nil {
		return 0, err
	}
	c.nextS++
	c.streams[c.nextS] = &emuStream{}
	return c.nextS, nil
}

// DestroyStream runs what the stream has queued (a card finishes it after
// the call) and releases the handle.
func (c *emuContext) DestroyStream(s Stream) error {
	if s == 0 {
		return emuError("emuStreamDestroy", cuInvalidHandle, fmt.Errorf("the default stream cannot be destroyed"), false)
	}
	err := c.SyncStream(s)
	delete(c.streams, s)
	return err
}

// stream returns stream s; nil for the default stream when it runs its
// work at once.
func (c *emuContext) stream(s Stream, op string) (*emuStream, error) {
	st, ok := c.streams[s]
	if !ok && s != 0 {
		return nil, emuError(op, cuInvalidHandle, fmt.Errorf("no stream %d", s), false)
	}
	return st, nil
}

// enqueue runs op now on the default stream (unless EmulatorLazyDefault
// made it a queue), or queues it on stream s.
func (c *emuContext) enqueue(s Stream, what string, op emuOp) error {
	if err := c.check(); err != nil {
		return err
	}
	st, err := c.stream(s, what)
	if err != nil {
		return err
	}
	if st == nil {
		return op.run()
	}
	st.ops = append(st.ops, op)
	return nil
}

// flush runs stream s's ops up to op upto (all of them for upto < 0).
func (c *emuContext) flush(s Stream, upto int) error {
	st, ok := c.streams[s]
	if !ok {
		return nil // the default stream's work is done (unless queued); a destroyed stream's too
	}
	if upto < 0 {
		upto = st.done + len(st.ops)
	}
	if st.done >= upto {
		return nil
	}
	if c.shuffle != nil {
		return c.flushShuffled(st, upto)
	}
	if st.flushing {
		return emuError("emuStreamWaitEvent", cuInvalidValue, fmt.Errorf("streams wait for each other: stream %d waits for work that waits for it", s), false)
	}
	st.flushing = true
	defer func() { st.flushing = false }()
	for st.done < upto && len(st.ops) > 0 {
		if err := st.runNext(); err != nil {
			return err
		}
	}
	return c.check()
}

// runNext runs the stream's first queued op. The op's slot is cleared:
// the queue's array would otherwise keep its host memory (a result's,
// say) from being collected.
func (st *emuStream) runNext() error {
	op := st.ops[0]
	st.ops[0] = emuOp{}
	st.ops = st.ops[1:]
	st.done++
	return op.run()
}

// EmulatorShuffle makes an emulated context run the queued work of its
// streams (other than the default one, whose work runs at once unless
// EmulatorLazyDefault queues it too) in an order drawn from seed: when
// something waits for a stream, the op that runs next is picked at random
// among the first ops of all streams that their waits allow, until the
// work waited for is done. Any order a card
// may pick is possible, so that a program missing a WaitEvent gives wrong
// results with some seed, while in the emulator's usual order (each
// stream as late as it may, in program order) it would not. It returns
// false for a context of another driver.
func EmulatorShuffle(c Context, seed uint64) bool {
	e, ok := c.(*emuContext)
	if ok {
		e.shuffle = rand.New(rand.NewPCG(seed, 0x5eed))
	}
	return ok
}

// EmulatorLazyDefault makes an emulated context queue the work of its
// default stream as it queues another stream's, in order, so that a
// program that misses a WaitEvent between the default stream and a
// stream from NewStream gives wrong results here as on a card (whose
// default stream neither waits for those non-blocking streams nor makes
// them wait): launches, Memset32, Record and the asynchronous copies and
// waits on stream 0 are queued; the default stream's work then runs when
// the host waits for it (Synchronize, SyncStream(0), SyncEvent or
// Elapsed of an event recorded on it, Free), when a synchronous copy
// (CopyIn, CopyOut, CopyInBytes, CopyOutBytes, CopyPeer) comes after it,
// or when another stream's work waits for it (WaitEvent). Synchronize
// runs the other streams' work first and the default stream's last, the
// latest it may. A WaitEvent of the default stream makes its later work
// wait for the event. A launch the interpreter refuses is still an error
// at once, on any stream, but the error of one that faults or that its
// context stops comes from the call that waits for it. The context keeps
// the mode across Reset; under EmulatorShuffle the default stream's work
// is picked at random among the others'. It returns false for a context
// of another driver.
func EmulatorLazyDefault(c Context) bool {
	e, ok := c.(*emuContext)
	if ok {
		e.queueDefault()
	}
	return ok
}

// queueDefault makes the default stream a queue (EmulatorLazyDefault).
func (c *emuContext) queueDefault() {
	c.lazy = true
	if _, ok := c.streams[0]; !ok {
		c.streams[0] = &emuStream{}
	}
}

// reached says whether stream s has run its first upto ops (a destroyed
// stream, or the default stream running its work at once, has).
func (c *emuContext) reached(s Stream, upto int) bool {
	st, ok := c.streams[s]
	return !ok || st.done >= upto
}

// flushShuffled is flush under EmulatorShuffle: it runs one op at a time,
// of a stream picked at random among those whose first op may run, until
// st has run upto ops.
func (c *emuContext) flushShuffled(st *emuStream, upto int) error {
	handles := make([]Stream, 0, len(c.streams))
	for h := range c.streams {
		handles = append(handles, h)
	}
	slices.Sort(handles) // the map's order would make a seed's order vary
	for st.done < upto && len(st.ops) > 0 {
		var ready []*emuStream
		for _, h := range handles {
			o, ok := c.streams[h]
			if ok && len(o.ops) > 0 && c.reached(o.ops[0].from, o.ops[0].after) && (o.ops[0].ready == nil || o.ops[0].ready()) {
				ready = append(ready, o)
			}
		}
		if len(ready) == 0 {
			return emuError("emuStreamWaitEvent", cuInvalidValue, fmt.Errorf("streams wait for each other: no queued op may run"), false)
		}
		if err := ready[c.shuffle.IntN(len(ready))].runNext(); err != nil {
			return err
		}
	}
	return c.check()
}

// drain runs every stream's queued work, the default stream's last, and
// returns the sticky error.
func (c *emuContext) drain() error {
	for s := Stream(1); s <= c.nextS; s++ {
		if err := c.flush(s, -1); err != nil {
			return err
		}
	}
	if err := c.flush(0, -1); err != nil {
		return err
	}
	return c.check()
}

// LaunchOn runs the kernel when stream s gets to it; a launch the
// interpreter refuses then reports its error to whoever waits, except
// under EmulatorLazyDefault, where it is an error at once, as
// cuLaunchKernel's is and as Launch's is on a default stream that runs
// its work at once.
func (c *emuContext) LaunchOn(ctx context.Context, s Stream, f Func, grid, block Dim3, sharedBytes int, args []uint64) error {
	if err := c.check(); err != nil {
		return err
	}
	k, err := c.kernel(f)
	if err != nil {
		return err
	}
	if c.lazy {
		if err := c.refused(k, grid, block, sharedBytes, args); err != nil {
			return err
		}
	}
	args = append([]uint64(nil), args...)
	return c.enqueue(s, "emuLaunchKernel", emuOp{run: func() error { return c.launch(ctx, k, grid, block, sharedBytes, args) }})
}

// refused returns the error of a launch the interpreter would not start,
// without running it: under a cancelled context a launch stops before its
// first block, once its shape and arguments are checked.
func (c *emuContext) refused(k *ptxemu.Kernel, grid, block Dim3, sharedBytes int, args []uint64) error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.dev.Launch(ctx, k, ptxemu.Dim3(grid), ptxemu.Dim3(block), sharedBytes, args)
	if le := (*ptxemu.LaunchError)(nil); errors.As(err, &le) {
		return emuError("emuLaunchKernel", cuInvalidValue, err, false)
	}
	return nil
}

// devRange checks that [p, p+bytes) lies inside one allocation, as the
// driver checks a copy's device range when it is queued.
func (c *emuContext) devRange(op string, p DevicePtr, bytes int) error {
	if err := c.dev.CheckRange(uint64(p), uint64(bytes)); err != nil {
		return emuError(op, cuInvalidValue, err, false)
	}
	return nil
}

func (c *emuContext) CopyInAsync(dst DevicePtr, src []byte, s Stream) error {
	if err := c.devRange("emuMemcpyHtoDAsync", dst, len(src)); err != nil || len(src) == 0 {
		return err
	}
	return c.enqueue(s, "emuMemcpyHtoDAsync", emuOp{host: src, run: func() error { return c.write(dst, src) }})
}

func (c *emuContext) CopyOutAsync(dst []byte, src DevicePtr, s Stream) error {
	if err := c.devRange("emuMemcpyDtoHAsync", src, len(dst)); err != nil || len(dst) == 0 {
		return err
	}
	return c.enqueue(s, "emuMemcpyDtoHAsync", emuOp{host: dst, run: func() error { return c.read(dst, src) }})
}

func (c *emuContext) CopyIn2DAsync(dst DevicePtr, devPitch int, src []byte, hostPitch, width, rows int, s Stream) error {
	return c.copy2D(true, src, hostPitch, dst, devPitch, width, rows, s)
}

func (c *emuContext) CopyOut2DAsync(dst []byte, hostPitch int, src DevicePtr, devPitch, width, rows int, s Stream) error {
	return c.copy2D(false, dst, hostPitch, src, devPitch, width, rows, s)
}

// copy2D queues a copy of rows rows of width bytes, row by row.
func (c *emuContext) copy2D(in bool, host []byte, hostPitch int, dev DevicePtr, devPitch, width, rows int, s Stream) error {
	const op = "emuMemcpy2DAsync"
	if err := check2D(len(host), hostPitch, devPitch, width, rows); err != nil {
		return emuError(op, cuInvalidValue, err, false)
	}
	if rows == 0 || width == 0 {
		return nil
	}
	if err := c.devRange(op, dev, (rows-1)*devPitch+width); err != nil {
		return err
	}
	used := host[:(rows-1)*hostPitch+width]
	return c.enqueue(s, op, emuOp{host: used, run: func() error {
		for r := range rows {
			h := host[r*hostPitch : r*hostPitch+width]
			d := dev + DevicePtr(r*devPitch)
			var err error
			if in {
				err = c.write(d, h)
			} else {
				err = c.read(h, d)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}})
}

// RecordOn records e: on the default stream at once (unless it is a
// queue), on another stream as an op that notes the time when it runs.
func (c *emuContext) RecordOn(e Event, s Stream) error {
	if err := c.check(); err != nil {
		return err
	}
	ev, ok := c.events[e]
	if !ok {
		return emuError("emuEventRecord", cuInvalidHandle, fmt.Errorf("no event %d", e), false)
	}
	st, err := c.stream(s, "emuEventRecord")
	if err != nil {
		return err
	}
	if st == nil {
		*ev = emuEvent{at: time.Now()}
		return nil
	}
	*ev = emuEvent{stream: s, seq: st.done + len(st.ops) + 1}
	st.ops = append(st.ops, emuOp{late: true, run: func() error {
		if ev.stream == s && ev.seq == st.done { // not recorded again since
			ev.at = time.Now()
		}
		return nil
	}})
	return nil
}

// WaitEvent makes s wait for e's latest record: the default stream (unless
// it is a queue) by running e's stream up to it now, another stream by
// queuing that.
func (c *emuContext) WaitEvent(s Stream, e Event) error {
	if err := c.check(); err != nil {
		return err
	}
	ev, ok := c.events[e]
	if !ok {
		return emuError("emuStreamWaitEvent", cuInvalidHandle, fmt.Errorf("no event %d", e), false)
	}
	from, seq := ev.stream, ev.seq
	if seq == 0 || from == s {
		_, err := c.stream(s, "emuStreamWaitEvent")
		return err // recorded on the default stream running its work at once (done), never, or on s itself (in order)
	}
	return c.enqueue(s, "emuStreamWaitEvent", emuOp{from: from, after: seq, run: func() error { return c.flush(from, seq) }})
}

// WaitValue queues a wait that runs, when its turn comes, the other
// streams' queued work one op at a time (in the order of their handles)
// until the word has reached the value; under EmulatorShuffle the wait
// is picked only once it has. A wait that no queued work can end is an
// error, where a card would wait for ever.
func (c *emuContext) WaitValue(s Stream, addr DevicePtr, value uint32) error {
	const op = "emuStreamWaitValue32"
	if err := c.devRange(op, addr, 4); err != nil {
		return err
	}
	var word [4]byte
	ready := func() bool {
		if err := c.read(word[:], addr); err != nil {
			return true // the run reports it
		}
		return int32(binary.LittleEndian.Uint32(word[:])-value) >= 0
	}
	return c.enqueue(s, op, emuOp{ready: ready, run: func() error {
		for !ready() {
			if err := c.check(); err != nil {
				return err
			}
			if err := c.read(word[:], addr); err != nil {
				return err
			}
			ran, err := c.runOther(s)
			if err != nil {
				return err
			}
			if !ran {
				return emuError(op, cuInvalidValue, fmt.Errorf("stream %d waits for the word at %#x to reach %d, and no queued work may write it", s, addr, value), false)
			}
		}
		return nil
	}})
}

// runOther runs the next queued op of the first stream other than s (by
// handle) that has one and is not running its ops already, and reports
// whether there was one.
func (c *emuContext) runOther(s Stream) (bool, error) {
	handles := make([]Stream, 0, len(c.streams))
	for h, o := range c.streams {
		if h != s && len(o.ops) > 0 && !o.flushing {
			handles = append(handles, h)
		}
	}
	if len(handles) == 0 {
		return false, nil
	}
	h := slices.Min(handles)
	return true, c.flush(h, c.streams[h].done+1)
}

func (c *emuContext) SyncStream(s Stream) error {
	if _, err := c.stream(s, "emuStreamSynchronize"); err != nil {
		return err
	}
	if err := c.flush(s, -1); err != nil {
		return err
	}
	return c.check()
}

func (c *emuContext) SyncEvent(e Event) error {
	ev, ok := c.events[e]
	if !ok {
		return emuError("emuEventSynchronize", cuInvalidHandle, fmt.Errorf("no event %d", e), false)
	}
	if err := c.flush(ev.stream, ev.seq); err != nil {
		return err
	}
	return c.check()
}

// span is b's address range.
func span(b []byte) (lo, hi uintptr) {
	lo = uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return lo, lo + uintptr(len(b))
}

// HostRegister notes b as registered, refusing an overlap.
func (c *emuContext) HostRegister(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	lo, hi := span(b)
	c.regMu.Lock()
	defer c.regMu.Unlock()
	for start, n := range c.registered {
		if lo < start+uintptr(n) && start < hi {
			return emuError("emuMemHostRegister", cuHostAlreadyRegistered,
				fmt.Errorf("%d bytes at %#x overlap the registered %d bytes at %#x", len(b), lo, n, start), false)
		}
	}
	c.registered[lo] = len(b)
	return nil
}

// HostUnregister releases a registration made with the same start, once
// no queued copy uses the memory.
func (c *emuContext) HostUnregister(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if err := c.idle(b, "emuMemHostUnregister"); err != nil {
		return err
	}
	lo, _ := span(b)
	c.regMu.Lock()
	defer c.regMu.Unlock()
	if _, ok := c.registered[lo]; !ok {
		return emuError("emuMemHostUnregister", cuHostNotRegistered, fmt.Errorf("%d bytes at %#x are not registered", len(b), lo), false)
	}
	delete(c.registered, lo)
	return nil
}

// idle reports an error when a queued copy uses memory in b.
func (c *emuContext) idle(b []byte, op string) error {
	lo, hi := span(b)
	for h, st := range c.streams {
		for _, o := range st.ops {
			if len(o.host) == 0 {
				continue
			}
			if olo, ohi := span(o.host); olo < hi && lo < ohi {
				return emuError(op, cuInvalidValue, fmt.Errorf("a copy queued on stream %d still uses this memory: wait for the stream first", h), false)
			}
		}
	}
	return nil
}
