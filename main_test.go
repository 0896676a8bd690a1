package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pathnotes/pathnotes/internal/cli"
	"github.com/pathnotes/pathnotes/internal/plotcheck"
	"github.com/pathnotes/pathnotes/kernel/notebook"
	"github.com/pathnotes/pathnotes/kernel/session"
)

// TestNotebooksRun executes every notebook of notebooks/ the way
// `pathnotes run` does, at the small scale CI uses, and checks that every
// code cell ran without an error output, and that every picture it drew
// reads: text inside the picture, a label in every decade of a log axis,
// and each series name in one colour in all the notebook's plots.
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
			if err := cli.RunNotebook(context.Background(), abs, out, 5*time.Minute, newSession); err != nil {
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
			checkPictures(t, filepath.Join(out, filepath.Base(p)))
		})
	}
}

// checkPictures checks every picture of the notebook at path with
// internal/plotcheck.
func checkPictures(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	found, err := plotcheck.Notebook(raw)
	if err != nil {
		t.Fatal(err)
	}
	var plots []plotcheck.Picture
	var where []string
	for _, f := range found {
		pic, err := plotcheck.Read(f.SVG)
		if err != nil {
			t.Errorf("cell %d: a picture's SVG: %v", f.Cell, err)
			continue
		}
		for _, problem := range pic.Problems() {
			t.Errorf("cell %d: %s", f.Cell, problem)
		}
		if pic.Plot {
			plots, where = append(plots, pic), append(where, fmt.Sprintf("cell %d", f.Cell))
		}
	}
	for _, problem := range plotcheck.Colors(plots, where) {
		t.Error(problem)
	}
}

// TestCommands checks that every subcommand has a summary and a function,
// that names are unique, and that the README's commands are all there.
func TestCommands(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands() {
		if c.summary == "" || c.run == nil {
			t.Errorf("command %q has no summary or no function", c.name)
		}
		if seen[c.name] {
			t.Errorf("command %q is listed twice", c.name)
		}
		seen[c.name] = true
	}
	for _, name := range []string{"kernel", "install", "run", "info", "bench", "apsp", "version", "help"} {
		if _, ok := lookup(name); !ok {
			t.Errorf("command %q is not registered", name)
		}
	}
}

// TestSessionPresents checks the session that the kernel and `pathnotes
// run` start: graph results and traces show through display (HTML), other
// values keep their text, and the GPU magics are registered.
func TestSessionPresents(t *testing.T) {
	s, err := newSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		code string
		html bool
	}{
		{"g, _ := graph.Example(\"karaula-fig3.1\")\nvar tr graph.FWTrace\nr, _ := cpu.FloydWarshall(Ctx(), g, cpu.FWOptions{Trace: &tr})\nr", true},
		{"&tr", true},
		{"42", false},
	} {
		code, html := c.code, c.html
		b, err := s.Execute(context.Background(), code, discard{})
		if err != nil || b == nil {
			t.Fatalf("%q: %v, %v", code, b, err)
		}
		if _, ok := b.Data["text/html"]; ok != html || b.Data["text/plain"] == nil {
			t.Errorf("%q: bundle with types %v, want HTML %v and text", code, keys(b.Data), html)
		}
	}
	b, err := s.Execute(context.Background(), "%help", discard{})
	if err != nil || b == nil || !strings.Contains(fmt.Sprint(b.Data["text/plain"]), "%%cuda") {
		t.Errorf("%%help does not list %%%%cuda: %v, %v", b, err)
	}
}

// discard is a cell output that drops everything.
type discard struct{}

func (discard) Stream(string, string)                {}
func (discard) Display(session.Bundle, string, bool) {}
func (discard) ClearOutput(bool)                     {}
func (discard) Input(string, bool) (string, error)   { return "", errors.New("no input") }

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestErrorLine checks that a command's error names the command once, as
// `pathnotes install` does when it cannot write the kernelspec.
func TestErrorLine(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := cli.Install([]string{"--prefix", notDir})
	if err == nil {
		t.Fatal("install into a file succeeded")
	}
	line := errorLine("install", err)
	if !strings.HasPrefix(line, "pathnotes install: ") || strings.Contains(line, "install: install:") {
		t.Errorf("error line %q", line)
	}
	if got := errorLine("run", errors.New("2 of 3 notebooks failed")); got != "pathnotes run: 2 of 3 notebooks failed" {
		t.Errorf("errorLine = %q", got)
	}
}
