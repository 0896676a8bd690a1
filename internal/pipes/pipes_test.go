//go:build unix

package pipes

import (
	"os"
	"syscall"
	"testing"
)

// TestReadReady checks the three answers: bytes that wait, nothing yet on
// an open pipe (without blocking), and a closed pipe.
func TestReadReady(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fd := int(r.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, open := ReadReady(fd, buf); n != 0 || !open {
		t.Errorf("empty pipe: %d bytes, open %v; want 0, true", n, open)
	}
	if _, err := w.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if n, open := ReadReady(fd, buf); n != 5 || !open || string(buf[:n]) != "hello" {
		t.Errorf("after a write: %q, open %v", buf[:n], open)
	}
	w.Close()
	if n, open := ReadReady(fd, buf); n != 0 || open {
		t.Errorf("closed pipe: %d bytes, open %v; want 0, false", n, open)
	}
}
