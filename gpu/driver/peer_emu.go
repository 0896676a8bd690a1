package driver

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
