package kernel

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests drive the pathnotes binary through Jupyter's own Python
// clients: the jupyter_kernel_test conformance suite and nbclient. They need
// /usr/bin/python3 with those modules (Debian: python3-jupyter-kernel-test,
// python3-nbclient); without them they skip, except under CI=true, where a
// missing tool is a failure.

const python = "/usr/bin/python3"

// requirePython skips (or, under CI, fails) the test unless python can
// import every module.
func requirePython(t *testing.T, modules ...string) {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %s", why)
		}
		t.Skip(why)
	}
	if _, err := os.Stat(python); err != nil {
		missing(python + " is missing")
	}
	for _, m := range modules {
		if out, err := exec.Command(python, "-c", "import "+m).CombinedOutput(); err != nil {
			missing(fmt.Sprintf("%s cannot import %s (%v): %s", python, m, err, strings.TrimSpace(string(out))))
		}
	}
}

// installed is the kernelspec that the Jupyter tests share: the binary is
// built and installed once per test run.
var installed struct {
	once sync.Once
	dir  string // temporary directory holding the binary and the prefix
	err  error
}

// TestMain removes the shared installation after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if installed.dir != "" {
		os.RemoveAll(installed.dir)
	}
	os.Exit(code)
}

// jupyterEnv builds the pathnotes binary, installs its kernelspec into a
// temporary prefix and returns the environment in which Jupyter clients
// find it, with a history file and runtime directory of their own.
func jupyterEnv(t *testing.T) []string {
	t.Helper()
	installed.once.Do(func() {
		dir, err := os.MkdirTemp("", "pathnotes-jupyter-test")
		if err != nil {
			installed.err = err
			return
		}
		installed.dir = dir
		bin := filepath.Join(dir, "pathnotes")
		build := exec.Command("go", "build", "-o", bin, "github.com/pathnotes/pathnotes")
		if out, err := build.CombinedOutput(); err != nil {
			installed.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		if out, err := exec.Command(bin, "install", "--prefix", filepath.Join(dir, "prefix")).CombinedOutput(); err != nil {
			installed.err = fmt.Errorf("pathnotes install: %v\n%s", err, out)
		}
	})
	if installed.err != nil {
		t.Fatal(installed.err)
	}
	home := t.TempDir()
	return append(os.Environ(),
		"JUPYTER_PATH="+filepath.Join(installed.dir, "prefix", "share", "jupyter"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(home, "runtime"),
		"JUPYTER_DATA_DIR="+filepath.Join(home, "data"),
		HistoryEnv+"="+filepath.Join(home, "history.jsonl"),
		"PATHNOTES_LOG_LEVEL=info",
	)
}

// runPython runs python with args in dir and returns its combined output.
func runPython(t *testing.T, env []string, dir string, timeout time.Duration, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("%w after %v", ctx.Err(), timeout)
	}
	return string(out), err
}

// TestConformance runs jupyter_kernel_test against the installed kernel.
// The suite skips hooks that a kernel leaves empty; only the pager, which Go
// cells have no use for, may be skipped here.
func TestConformance(t *testing.T) {
	requirePython(t, "jupyter_kernel_test", "jupyter_client")
	env := jupyterEnv(t)
	out, err := runPython(t, env, "testdata", 5*time.Minute, "-m", "unittest", "-v", "conformance_test")
	t.Logf("jupyter_kernel_test:\n%s", out)
	if err != nil {
		t.Fatalf("conformance suite failed: %v", err)
	}
	if !regexp.MustCompile(`(?m)^OK \(skipped=1\)$`).MatchString(out) ||
		!regexp.MustCompile(`test_pager .*skipped`).MatchString(out) {
		t.Errorf("want every test but test_pager to run and pass")
	}
}

// TestNotebooks executes, through nbclient, the notebooks of testdata (each
// code cell may state the outputs it must produce) and every notebook of
// the repository's notebooks directory, at a small PATHNOTES_SCALE.
func TestNotebooks(t *testing.T) {
	requirePython(t, "nbclient", "nbformat", "jupyter_client")
	own, _ := filepath.Glob("testdata/*.ipynb")
	if len(own) == 0 {
		t.Fatal("no notebooks in testdata")
	}
	repo, _ := filepath.Glob("../notebooks/*.ipynb")
	t.Logf("%d notebooks of testdata, %d of notebooks/", len(own), len(repo))
	env := append(jupyterEnv(t), "PATHNOTES_SCALE=0.05")
	notebooks := append(own, repo...)
	sort.Strings(notebooks)
	for _, nb := range notebooks {
		t.Run(filepath.Base(nb), func(t *testing.T) {
			abs, err := filepath.Abs(nb)
			if err != nil {
				t.Fatal(err)
			}
			out, err := runPython(t, env, ".", 8*time.Minute, "testdata/run_notebook.py", abs)
			if err != nil {
				t.Fatalf("%s: %v\n%s", nb, err, out)
			}
			t.Log(strings.TrimSpace(out))
		})
	}
}
