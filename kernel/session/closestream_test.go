package session

import (
	"context"
	"strings"
	"testing"
)

// A cell that closes os.Stdout or os.Stderr closes them for itself only:
// later cells print to both as before, through fmt and through the files.
func TestCellClosesStdStreams(t *testing.T) {
	s := newSession(t)
	for _, name := range []string{"Stdout", "Stderr"} {
		rec := newRecorder()
		if _, err := s.Execute(context.Background(), `import "os"
err := os.`+name+`.Close()
fmt.Println("closed", err)`, rec); err != nil {
			t.Fatalf("closing os.%s: %v", name, err)
		}
		// fmt.Println writes to os.Stdout: closed, it prints nothing more.
		want := map[string]string{"Stdout": "", "Stderr": "closed <nil>\n"}[name]
		if got := rec.stdout(); got != want {
			t.Errorf("after closing os.%s the same cell printed %q, want %q", name, got, want)
		}
		rec = newRecorder()
		if _, err := s.Execute(context.Background(), `fmt.Println("out")
fmt.Fprintln(os.Stdout, "file out")
fmt.Fprintln(os.Stderr, "file err")
println("builtin")`, rec); err != nil {
			t.Fatalf("cell after closing os.%s: %v", name, err)
		}
		if got, want := rec.stdout(), "out\nfile out\nbuiltin\n"; got != want {
			t.Errorf("after a cell closed os.%s, stdout = %q, want %q", name, got, want)
		}
		if got, want := rec.stderr(), "file err\n"; got != want {
			t.Errorf("after a cell closed os.%s, stderr = %q, want %q", name, got, want)
		}
	}
	// The close is the cell's own: its second close reports it, as Go does.
	got := run(t, s, `os.Stdout.Close(); os.Stdout.Close() != nil`)
	if !strings.Contains(got, "true") {
		t.Errorf("closing os.Stdout twice in a cell: second Close gave nil error (result %q)", got)
	}
}

// A cell that points os.Stdout at a file and closes it leaves the next
// cell's os.Stdout open on the session's stream again; one left open is kept.
func TestCellRedirectsStdout(t *testing.T) {
	s := newSession(t)
	run(t, s, `import "os"
r, w, _ := os.Pipe()
os.Stdout = w
fmt.Println("to the pipe")
w.Close()`)
	rec := newRecorder()
	if _, err := s.Execute(context.Background(), `fmt.Println("back")`, rec); err != nil {
		t.Fatal(err)
	}
	if got := rec.stdout(); got != "back\n" {
		t.Errorf("after os.Stdout was redirected to a closed pipe, stdout = %q, want %q", got, "back\n")
	}
	got := run(t, s, `b := make([]byte, 100); n, _ := r.Read(b); string(b[:n])`)
	if !strings.Contains(got, "to the pipe") {
		t.Errorf("fmt.Println after os.Stdout = w wrote %q to w, want %q", got, "to the pipe\n")
	}
}
