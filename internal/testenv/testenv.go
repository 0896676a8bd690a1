// Package testenv holds what tests share about the machine they run on:
// whether the CUDA compilers that the tests of gpu, its compiler and the
// %%cuda magic need are on PATH.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// NeedNVCC skips a test that needs nvcc when it is not on PATH, or fails
// it under CI=true (CI installs Debian's CUDA toolkit).
func NeedNVCC(t testing.TB) {
	t.Helper()
	needTool(t, "nvcc", ": CI must install the CUDA toolkit (.ci/run does)",
		" (no CUDA toolkit here): the compiler tests need it")
}

// NeedClang skips a test that needs clang when it is not on PATH, or fails
// it under CI=true (CI installs Debian's clang).
func NeedClang(t testing.TB) {
	t.Helper()
	needTool(t, "clang", ": CI must install it (.ci/run does)",
		": the tests of clang as a CUDA compiler need it")
}

// needTool skips t when tool is not on PATH, or fails it under CI=true;
// inCI and here end the message "tool is not on PATH" in each case.
func needTool(t testing.TB, tool, inCI, here string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(tool + " is not on PATH" + inCI)
		}
		t.Skip(tool + " is not on PATH" + here)
	}
}
