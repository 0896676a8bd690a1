//go:build cuda

package cells

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// envFaultChild makes the test binary, started again by TestCardCellFaults,
// run TestCardCellFaultChild with the checks it names.
const envFaultChild = "PATHNOTES_GPU_TEST_FAULT_CHILD"

// TestCardCellFaults runs the checks of TestCellLaunchFault and
// TestCellAsyncFault on the card, each in a child process: after an
// illegal address the CUDA driver may refuse all further GPU work in the
// process. As on the emulator, cells.Launch returns the fault naming the
// kernel, Synchronize does so after cells.LaunchAsync, and fw-blocked run next
// either works or says that the GPU needs a restart because of that kernel.
func TestCardCellFaults(t *testing.T) {
	testDevice(t)
	for _, mode := range []string{"launch", "async"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCardCellFaultChild$", "-test.v")
		cmd.Env = append(os.Environ(), envFaultChild+"="+mode)
		out, err := cmd.CombinedOutput()
		t.Logf("child %s:\n%s", mode, out)
		if err != nil {
			t.Errorf("child %s failed: %v", mode, err)
		} else if !strings.Contains(string(out), "--- PASS: TestCardCellFaultChild") {
			t.Errorf("child %s did not run the checks", mode)
		}
	}
}

// TestCardCellFaultChild runs only as TestCardCellFaults's child.
func TestCardCellFaultChild(t *testing.T) {
	mode := os.Getenv(envFaultChild)
	if mode == "" {
		t.Skip("runs as the child process of TestCardCellFaults")
	}
	testDevice(t)
	switch mode {
	case "launch":
		checkLaunchFault(t)
	case "async":
		checkAsyncFault(t)
	default:
		t.Fatalf("%s=%q: want launch or async", envFaultChild, mode)
	}
}
