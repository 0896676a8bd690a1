//go:build cuda

package gpu

import "testing"

// TestCardStreams is TestEmuStreams on the card, without the checks of
// when queued work runs (a card may have done it already).
func TestCardStreams(t *testing.T) {
	streamChecks(t, testDevice(t), false)
}
