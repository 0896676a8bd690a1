//go:build cuda

package driver

// Peer copies between cards of one host: cuMemcpyPeer, over NVLink or PCIe
// where cuDeviceCanAccessPeer allows direct access.

import (
	"errors"

	"gorgonia.org/cu"
)

// EnablePeer lets this context reach other's memory directly
// (cuCtxEnablePeerAccess) when the two cards can (cuDeviceCanAccessPeer),
// and reports whether they can.
func (c *cudaCtx) EnablePeer(other Context) (bool, error) {
	o, ok := other.(*cudaCtx)
	if !ok {
		return false, nil
	}
	var can int
	err := c.do("cuDeviceCanAccessPeer", func() (err error) {
		can, err = c.dev.CanAccessPeer(o.dev)
		return err
	})
	if err != nil || can == 0 {
		return false, err
	}
	err = c.do("cuCtxEnablePeerAccess", func() error {
		if err := o.ctx.EnablePeerAccess(0); err != nil && !errors.Is(err, cu.PeerAccessAlreadyEnabled) {
			return err
		}
		return nil
	})
	return err == nil, err
}

// CopyPeer copies bytes from src on the card of from into dst on this
// card. cuMemcpyPeer is asynchronous for the host but ordered after all
// work queued on both cards, and work queued later on either comes after
// it.
func (c *cudaCtx) CopyPeer(dst DevicePtr, from Context, src DevicePtr, bytes uint64) error {
	o, ok := from.(*cudaCtx)
	if !ok {
		return errNotPeer
	}
	return c.do("cuMemcpyPeer", func() error {
		return cu.MemcpyPeer(cu.DevicePtr(dst), c.ctx, cu.DevicePtr(src), o.ctx, int64(bytes))
	})
}

// CopyPeerAsync copies bytes from src on the card of from into dst on this
// card on stream s (cuMemcpyPeerAsync), ordered with s's work only.
func (c *cudaCtx) CopyPeerAsync(dst DevicePtr, from Context, src DevicePtr, bytes uint64, s Stream) error {
	o, ok := from.(*cudaCtx)
	if !ok {
		return errNotPeer
	}
	st, err := c.stream(s)
	if err != nil {
		return err
	}
	return c.do("cuMemcpyPeerAsync", func() error {
		return cu.MemcpyPeerAsync(cu.DevicePtr(dst), c.ctx, cu.DevicePtr(src), o.ctx, int64(bytes), st)
	})
}

// WaitPeerEvent makes stream s wait for event e of from.
func (c *cudaCtx) WaitPeerEvent(s Stream, from Context, e Event) error {
	o, ok := from.(*cudaCtx)
	if !ok {
		return errNotPeer
	}
	return c.waitOn(s, o, e)
}
