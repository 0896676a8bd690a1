package driver

import (
	"context"

	"github.com/pathnotes/pathnotes/gpu/ptxemu"
)

// ProfileLaunch runs a launch on the emulator with its counters on and
// returns what they counted (nil when the launch did not run). It runs
// at once, after the work queued on the default stream
// (EmulatorLazyDefault), which the counters do not see.
func (c *emuContext) ProfileLaunch(ctx context.Context, f Func, grid, block Dim3, sharedBytes int, args []uint64) (*ptxemu.Profile, error) {
	if err := c.flush(0, -1); err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	k, err := c.kernel(f)
	if err != nil {
		return nil, err
	}
	var got *ptxemu.Profile
	c.dev.SetProfiler(func(p *ptxemu.Profile) { got = p })
	err = c.launch(ctx, k, grid, block, sharedBytes, args)
	c.dev.SetProfiler(nil)
	return got, err
}

// resources gives the kernel's static shared memory; the emulator knows
// no registers (PTX's are virtual).
func (c *emuContext) Resources(f Func) (registers, staticShared int, err error) {
	k, err := c.kernel(f)
	if err != nil {
		return 0, 0, err
	}
	return 0, k.StaticShared(), nil
}
