package gpu

import "github.com/pathnotes/pathnotes/gpu/driver"

// Count returns how many devices the active driver sees (PATHNOTES_GPU
// picks it), without opening any: a process that drives one of a host's
// GPUs picks its ordinal from it.
func Count() (int, error) {
	drv, err := driver.Active()
	if err != nil {
		return 0, err
	}
	return drv.DeviceCount()
}
