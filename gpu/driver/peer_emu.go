package driver

import "fmt"

// Peer copies between emulated devices: two emulators live in one process,
// so each can read the other's memory, as two cards joined by NVLink can.

// EnablePeer reports that other, if it is an emulated device too, can be
// copied from directly.
func (c *emuContext) EnablePeer(other Context) (bool, error) {
	_, ok := other.(*emuContext)
	return ok, c.check()
}

// CopyPeer copies bytes from src on the emulated device from into dst,
// after the work queued on either device's default stream
// (EmulatorLazyDefault), as cuMemcpyPeer comes after it.
func (c *emuContext) CopyPeer(dst DevicePtr, from Context, src DevicePtr, bytes uint64) error {
	o, ok := from.(*emuContext)
	if !ok {
		return emuError("emuMemcpyPeer", cuInvalidValue, errNotPeer, false)
	}
	if err := c.flush(0, -1); err != nil {
		return err
	}
	if err := o.flush(0, -1); err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	b := make([]byte, bytes)
	if err := o.dev.Read(uint64(src), b); err != nil {
		return emuError("emuMemcpyPeer", cuInvalidValue, err, false)
	}
	if err := c.dev.Write(uint64(dst), b); err != nil {
		return emuError("emuMemcpyPeer", cuInvalidValue, err, false)
	}
	return nil
}

// CopyPeerAsync reads bytes from src on the emulated device from at once,
// and queues on stream s the write of what it read into dst (at once on a
// default stream that runs its work at once): from's work that writes src
// must have run, which a WaitPeerEvent before it sees to, and from's
// later work cannot change what is copied. The two devices' work thus
// never runs from one call: each device's goroutine runs its own (the
// emulator's contexts are not safe for two goroutines at once).
func (c *emuContext) CopyPeerAsync(dst DevicePtr, from Context, src DevicePtr, bytes uint64, s Stream) error {
	o, ok := from.(*emuContext)
	if !ok {
		return emuError("emuMemcpyPeerAsync", cuInvalidValue, errNotPeer, false)
	}
	if err := o.check(); err != nil {
		return err
	}
	if err := c.devRange("emuMemcpyPeerAsync", dst, int(bytes)); err != nil {
		return err
	}
	b := make([]byte, bytes)
	if err := o.dev.Read(uint64(src), b); err != nil {
		return emuError("emuMemcpyPeerAsync", cuInvalidValue, err, false)
	}
	return c.enqueue(s, "emuMemcpyPeerAsync", emuOp{late: true, run: func() error {
		if err := c.dev.Write(uint64(dst), b); err != nil {
			return emuError("emuMemcpyPeerAsync", cuInvalidValue, err, false)
		}
		return nil
	}})
}

// WaitPeerEvent runs from's work up to e's latest record at once, but for
// its trailing late ops (records, and writes of peer copies whose sources
// were read when queued), which only from's own streams can observe: what
// s queues later then comes after it, as on a card. Running it here rather
// than when s gets to it keeps each device's work on the goroutine that
// drives the device, where its later work waits for it by its own events.
// The caller must not drive from on another goroutine meanwhile (the
// emulator's contexts are not safe for two goroutines at once): streamed
// fw-fast makes its cross-device calls from one goroutine, in ownStages.
func (c *emuContext) WaitPeerEvent(s Stream, from Context, e Event) error {
	o, ok := from.(*emuContext)
	if !ok {
		return emuError("emuStreamWaitEvent", cuInvalidValue, errNotPeer, false)
	}
	if _, err := c.stream(s, "emuStreamWaitEvent"); err != nil {
		return err
	}
	ev, ok := o.events[e]
	if !ok {
		return emuError("emuStreamWaitEvent", cuInvalidHandle, fmt.Errorf("no event %d", e), false)
	}
	upto := ev.seq
	if st, ok := o.streams[ev.stream]; ok {
		for upto > st.done && st.ops[upto-st.done-1].late {
			upto--
		}
	}
	if err := o.flush(ev.stream, upto); err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	return c.check()
}
