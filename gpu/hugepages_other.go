//go:build !linux

package gpu

// adviseHuge does nothing where transparent huge pages do not exist.
func adviseHuge(b []byte) {}
