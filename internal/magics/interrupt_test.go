package magics

import (
	"context"
	"strings"
	"testing"
	"time"
)

// spinPTX is package cells' test kernel that never ends.
var spinPTX = mustReadFile("../../gpu/cells/testdata/spin.ptx")

// TestInterruptEndlessKernel interrupts a Go cell whose cells.Launch runs an
// endless %%ptx kernel on the emulator: the interrupt stops the kernel
// (Register makes the cell's context the launches' context), so the next
// cell's launch runs instead of waiting for the device forever.
func TestInterruptEndlessKernel(t *testing.T) {
	s, _ := cellSession(t)
	if _, _, err := run(t, s, "%%ptx\n"+spinPTX); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, s, "%%ptx --name celltest\n"+cellTestPTX); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := s.Execute(ctx, `err := cells.Launch("spin", gpu.Dim(2), gpu.Dim(32), 0)
fmt.Println("spin returned", err)`, &cellOutput{})
	if err == nil || !strings.Contains(err.Error(), "nterrupt") {
		t.Errorf("interrupted cell: %v, want an interruption", err)
	}
	done := make(chan string, 1)
	go func() {
		_, printed, err := run(t, s, launchCell)
		if err != nil {
			printed += err.Error()
		}
		done <- printed
	}()
	select {
	case printed := <-done:
		if printed != "[11 22 33] <nil>\n" {
			t.Errorf("the cell after the interrupt printed %q", printed)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the cell after the interrupt still waits after 30 s: the endless kernel was not stopped")
	}
}
