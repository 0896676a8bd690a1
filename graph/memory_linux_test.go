package graph

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/internal/rlimittest"
)

const rlimitChildEnv = "PATHNOTES_TEST_RLIMIT_CHILD"

// TestRlimitRefusesInsteadOfDying runs the test binary again under an
// address-space limit (ulimit -v) 1 GiB above what it uses, with the real
// limit discovery: an n×n result and a file header too large for it must be
// errors naming RLIMIT_AS, not the end of the process, and a result that
// fits must still be made.
func TestRlimitRefusesInsteadOfDying(t *testing.T) {
	if os.Getenv(rlimitChildEnv) == "1" {
		rlimitChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRlimitRefusesInsteadOfDying$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), rlimitChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child under RLIMIT_AS: %v\n%s", err, out)
	}
	for _, want := range []string{
		"refused matrices: graph: 2 n×n int32 matrices for n=30000 need 6.71 GiB, but only ",
		"refused header: input:1: problem line says n=2000000000: the CSR offsets of 2000000000 vertices need 7.45 GiB, but only ",
		"made 3000×3000",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child output lacks %q:\n%s", want, out)
		}
	}
}

func rlimitChild(t *testing.T) {
	rlimittest.LimitAddressSpace(t, 1<<30)
	for _, c := range []struct {
		what string
		err  func() error
	}{
		{"matrices", func() error { _, err := NewAllPairs(30000, true); return err }},
		{"header", func() error { _, err := Read(strings.NewReader("p sp 2000000000 0\n"), ReadOptions{}); return err }},
	} {
		err := c.err()
		if err == nil || !strings.Contains(err.Error(), "of memory is available (RLIMIT_AS (ulimit -v) ") {
			t.Fatalf("%s under RLIMIT_AS: %v", c.what, err)
		}
		fmt.Printf("refused %s: %v\n", c.what, err)
	}
	r, err := NewAllPairs(3000, true)
	if err != nil {
		t.Fatalf("3000×3000 under RLIMIT_AS: %v", err)
	}
	fmt.Printf("made %d×%d\n", r.N, r.N)
}
