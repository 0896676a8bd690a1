// Package testenv holds what the tests of package gpu and its compiler
// share about the machine they run on.
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
	if _, err := exec.LookPath("nvcc"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nvcc is not on PATH: CI must install the CUDA toolkit (.ci/run does)")
		}
		t.Skip("nvcc is not on PATH (no CUDA toolkit here): the compiler tests need it")
	}
}

// NeedClang skips a test that needs clang when it is not on PATH, or fails
// it under CI=true (CI installs Debian's clang).
func NeedClang(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("clang"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("clang is not on PATH: CI must install it (.ci/run does)")
		}
		t.Skip("clang is not on PATH: the tests of clang as a CUDA compiler need it")
	}
}
