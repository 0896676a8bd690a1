package notebook

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestValidByNbformat checks a notebook written after a run with the
// Jupyter project's own validator (Debian's python3-nbformat), an
// independent reading of the nbformat 4 schema. (testdata/roundtrip.ipynb
// is not checked: it has unknown fields on purpose.)
func TestValidByNbformat(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import nbformat").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s with nbformat is required under CI: %v", python, err)
		}
		t.Skipf("%s cannot import nbformat (install python3-nbformat): %v", python, err)
	}
	nb, err := Read("testdata/small.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	Run(context.Background(), nb, newSession, RunOptions{}) // fails at cell 5, by design
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran.ipynb")
	if err := nb.Write(ran); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{ran} {
		out, err := exec.Command(python, "-c",
			"import sys, nbformat; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))", p).CombinedOutput()
		if err != nil {
			t.Errorf("%s is not valid nbformat 4: %v\n%s", p, err, out)
		}
	}
}
