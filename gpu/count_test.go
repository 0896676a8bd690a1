package gpu

import (
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/gpu/driver"
)

// TestCount checks that Count reports the emulator's device count, and
// its refusal of a bad one, without opening a device.
func TestCount(t *testing.T) {
	t.Setenv(EnvDriver, "emu")
	t.Setenv(driver.EnvEmuDevices, "3")
	if n, err := Count(); n != 3 || err != nil {
		t.Errorf("Count() = %d, %v; want 3", n, err)
	}
	t.Setenv(driver.EnvEmuDevices, "")
	if n, err := Count(); n != 1 || err != nil {
		t.Errorf("Count() = %d, %v; want 1", n, err)
	}
	t.Setenv(driver.EnvEmuDevices, "zero")
	if _, err := Count(); err == nil || !strings.Contains(err.Error(), driver.EnvEmuDevices) {
		t.Errorf("a bad count: %v", err)
	}
}
