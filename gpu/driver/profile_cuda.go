//go:build cuda

package driver

import "gorgonia.org/cu"

// resources asks the driver for the kernel's registers per thread and
// static shared memory (cuFuncGetAttribute).
func (c *cudaCtx) Resources(f Func) (registers, staticShared int, err error) {
	fn, err := c.function(f)
	if err != nil {
		return 0, 0, err
	}
	err = c.do("cuFuncGetAttribute", func() (err error) {
		if registers, err = fn.Attribute(cu.NumRegs); err != nil {
			return err
		}
		staticShared, err = fn.Attribute(cu.SharedSizeBytes)
		return err
	})
	return registers, staticShared, err
}
