//go:build !linux

package gpu

// vmstat has no /proc/vmstat to read here: nil.
func vmstat(names ...string) map[string]int64 { return nil }
