package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/kernel/notebook"
)

// TestNotebooksRun executes every notebook of notebooks/ the way
// `pathnotes run` does, at the small scale CI uses, and checks that every
// code cell ran without an error output.
func TestNotebooksRun(t *testing.T) {
	paths, err := filepath.Glob("notebooks/*.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no notebooks under notebooks/")
	}
	t.Setenv("PATHNOTES_SCALE", "0.05")
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			abs, err := filepath.Abs(p)
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			if err := runNotebook(context.Background(), abs, out, 5*time.Minute); err != nil {
				t.Fatalf("pathnotes run: %v", err)
			}
			nb, err := notebook.Read(filepath.Join(out, filepath.Base(p)))
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range nb.Cells {
				if c.CellType != "code" || strings.TrimSpace(c.Source) == "" {
					continue
				}
				if c.ExecutionCount == nil {
					t.Errorf("cell %d did not run", i)
				}
				for _, o := range c.Outputs {
					if o.OutputType == "error" && !c.HasTag(notebook.RaisesException) {
						t.Errorf("cell %d: %s: %s", i, o.EName, o.EValue)
					}
				}
			}
		})
	}
}

// TestCommands checks that every subcommand has a summary and that the
// ones later issues rely on are registered.
func TestCommands(t *testing.T) {
	for _, name := range []string{"kernel", "install", "run", "info", "version", "help"} {
		if _, ok := commands[name]; !ok {
			t.Errorf("command %q is not registered", name)
		}
	}
	for name, c := range commands {
		if c.summary == "" || c.run == nil {
			t.Errorf("command %q has no summary or no function", name)
		}
	}
}
