package gpu

// Count returns how many devices the active driver sees (PATHNOTES_GPU
// picks it), without opening any: a process that drives one of a host's
// GPUs picks its ordinal from it.
func Count() (int, error) {
	drv, err := activeDriver()
	if err != nil {
		return 0, err
	}
	return drv.DeviceCount()
}
