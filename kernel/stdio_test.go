//go:build unix

package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// TestCaptureFD redirects a descriptor of a temporary file (not the test's
// own stdout), writes to it as compiled code would, and checks that the
// text reaches the sink in order, that sync waits for it, and that Close
// puts the descriptor back.
func TestCaptureFD(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := int(f.Fd())
	c, err := captureFDs(map[int]string{fd: "stdout"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got strings.Builder
	c.setSink(func(name, text string) {
		mu.Lock()
		defer mu.Unlock()
		if name != "stdout" {
			t.Errorf("stream name %q", name)
		}
		got.WriteString(text)
	})
	want := ""
	for i := 0; i < 200; i++ {
		line := strings.Repeat("x", i) + "é\n" // multi-byte text, writes of many sizes
		if _, err := syscall.Write(fd, []byte(line)); err != nil {
			t.Fatal(err)
		}
		want += line
		if i%50 == 0 {
			c.sync()
			mu.Lock()
			if got.String() != want {
				t.Fatalf("after sync %d: sink has %d bytes, want %d", i, got.Len(), len(want))
			}
			mu.Unlock()
		}
	}
	// A write that looks like the start of a marker is text like any other.
	syscall.Write(fd, []byte("\x00pathnotes-sy"))
	want += "\x00pathnotes-sy"
	c.sync()
	mu.Lock()
	if got.String() != want {
		t.Errorf("sink has %q..., want %d bytes", got.String()[max(0, got.Len()-40):], len(want))
	}
	mu.Unlock()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	syscall.Write(fd, []byte("after"))
	data, _ := os.ReadFile(path)
	if string(data) != "after" {
		t.Errorf("file after Close holds %q, want %q", data, "after")
	}
}
