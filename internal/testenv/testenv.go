// Package testenv holds what tests share about the machine they run on:
// whether the CUDA compilers that the tests of gpu, its compiler, the
// %%cuda magic and ptx need are there and compile.
package testenv

import (
	"os"
	"testing"

	"github.com/pathnotes/pathnotes/internal/toolchain"
)

// InCI reports whether the tests run in CI (CI=true), where a tool that
// a test needs and that does not work fails the test instead of skipping it.
func InCI() bool { return os.Getenv("CI") == "true" }

// NeedNVCC returns nvcc as package toolchain found it, after it compiled
// a trivial kernel (with the host compiler it needed). Where nvcc is
// missing or cannot compile, the test skips and names the reason, or
// fails under CI=true (CI installs Debian's CUDA toolkit).
func NeedNVCC(t testing.TB) toolchain.Compiler {
	t.Helper()
	return need(t, toolchain.NVCC(), "CI must install the CUDA toolkit and a host compiler it accepts (.ci/run does)",
		"the compiler tests need a CUDA toolkit that compiles")
}

// NeedClang returns clang as package toolchain found it, after it compiled
// a trivial kernel to PTX. Where clang is missing or cannot compile, the
// test skips and names the reason, or fails under CI=true (CI installs
// Debian's clang).
func NeedClang(t testing.TB) toolchain.Compiler {
	t.Helper()
	return need(t, toolchain.Clang(), "CI must install clang (.ci/run does)",
		"the tests of clang as a CUDA compiler need one that compiles")
}

// need skips t, or fails it under CI, when c does not work; inCI and here
// end the message in each case.
func need(t testing.TB, c toolchain.Compiler, inCI, here string) toolchain.Compiler {
	t.Helper()
	if !c.Works() {
		if InCI() {
			t.Fatal(c.String() + ": " + inCI)
		}
		t.Skip(c.String() + ": " + here)
	}
	return c
}
