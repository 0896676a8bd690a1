package cli

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/kernel/session"
)

// plainSession starts a session without the bindings, enough for a
// notebook of plain Go.
func plainSession() (*session.Session, error) { return session.New(session.Options{}) }

const tinyNotebook = `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
 {"cell_type": "code", "id": "a", "metadata": {}, "outputs": [], "execution_count": null, "source": "1 + 2"}]}
`

// TestRunRefusesSymlinkedOutput checks that pathnotes run does not write a
// notebook through a symbolic link at its output path to another file,
// says so and leaves that file alone, while a link to the notebook being
// run (a linked notebook run where it lies) is written through.
func TestRunRefusesSymlinkedOutput(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	nb := filepath.Join(src, "nb.ipynb")
	if err := os.WriteFile(nb, []byte(tinyNotebook), 0o644); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "precious.txt")
	if err := os.WriteFile(victim, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(out, "nb.ipynb")); err != nil {
		t.Fatal(err)
	}
	err := RunNotebook(context.Background(), nb, out, 0, plainSession)
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link to "+victim+": refusing to write the notebook through it") {
		t.Errorf("run into a link to another file: %v", err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "keep me\n" {
		t.Errorf("the link's target now holds %q", data)
	}

	// A link to the notebook itself, run in place.
	link := filepath.Join(src, "link.ipynb")
	if err := os.Symlink(nb, link); err != nil {
		t.Fatal(err)
	}
	if err := RunNotebook(context.Background(), link, src, 0, plainSession); err != nil {
		t.Fatalf("run of a linked notebook in place: %v", err)
	}
	if data, _ := os.ReadFile(nb); !strings.Contains(string(data), `"execution_count": 1`) {
		t.Errorf("the linked notebook was not updated:\n%s", data)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a link: %v", err)
	}
}

// TestRunSetsMemoryLimit checks that pathnotes run sets the Go runtime's
// soft memory limit, as the kernel does, unless GOMEMLIMIT sets one.
func TestRunSetsMemoryLimit(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: the run leaves the limit to it")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	dir := t.TempDir()
	nb := filepath.Join(dir, "nb.ipynb")
	if err := os.WriteFile(nb, []byte(tinyNotebook), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Run([]string{"--out", dir, nb}, plainSession); err != nil {
		t.Fatal(err)
	}
	if limit := debug.SetMemoryLimit(-1); limit == math.MaxInt64 {
		t.Error("pathnotes run left the Go memory limit unset")
	}
}
