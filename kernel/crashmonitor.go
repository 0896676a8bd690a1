//go:build unix

package kernel

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The crash monitor is a second process that outlives the kernel to say why
// it died. The Go runtime writes the line naming a fatal error ("fatal
// error: out of memory") to file descriptor 2 alone, before it counts as
// crashing (Go issue 76859), and the kernel's capture, which reads that
// descriptor, is frozen with the rest of the process an instant later; only
// the goroutine traces go to the crash output (debug.SetCrashOutput). So
// GuardProcess starts the kernel's own executable again as a monitor,
// holding:
//
//   - on its standard input, the read end of the crash output;
//   - on descriptor 3, notes of the cells the kernel runs (noteCell);
//   - on descriptor 4, a reader of its own of the pipe behind the kernel's
//     descriptor 2 (Linux: /proc/self/fd), where what the kernel did not
//     read stays after it dies;
//   - on descriptor 5, a copy of what the kernel's capture did read from
//     that pipe (StdioCapture.setTee), of which it keeps the end: the
//     runtime writes the headline in pieces, and the capture may read some
//     before the process freezes;
//   - on its standard error, the kernel's standard error from before the
//     capture, which Jupyter shows in its log.
//
// When the crash output ends with text in it, the kernel has died: the
// monitor finds the runtime's headline in what descriptors 5 and 4 brought
// last and writes it, with the cell that was running, to its standard error and
// to the log file, then the traces (to the log file when there is one, to
// standard error otherwise). When it ends empty, the kernel exited and the
// monitor does too. The monitor runs in a process group of its own, so that
// the signals a front end sends the kernel's group (interrupts) do not
// reach it.

// Environment of the monitor: its presence makes the process a monitor
// (see init), and it names the log file ("" for none).
const (
	monitorEnv    = "PATHNOTES_CRASH_MONITOR"
	monitorLogEnv = "PATHNOTES_CRASH_MONITOR_LOG"
)

// Limits of the monitor: the bytes of a cell's note (at most the pipe's
// atomic write, PIPE_BUF, header included), the traces it keeps, the
// lines of the cell it shows, and the end of the copy of descriptor 2 it
// keeps.
const (
	maxNote      = 4000
	maxTrace     = 16 << 20
	maxNoteLines = 20
	maxTail      = 64 << 10
)

// init turns the process into the crash monitor when GuardProcess started
// it as one; in every other process it does nothing.
func init() {
	if os.Getenv(monitorEnv) != "" {
		os.Exit(runMonitor(os.Stdin, os.NewFile(3, "notes"), os.NewFile(4, "stderr"), os.NewFile(5, "tee"),
			os.Stderr, os.Getenv(monitorLogEnv)))
	}
}

// crashNotes is the write end of the monitor's notes, nil without a monitor.
var crashNotes struct {
	mu sync.Mutex
	w  *os.File
}

// startMonitor starts the crash monitor and makes the runtime write its
// crash output to it.
func startMonitor(stdio *StdioCapture, logPath string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	crashR, crashW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer crashR.Close()
	defer crashW.Close() // the runtime keeps a duplicate
	notesR, notesW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer notesR.Close()
	teeR, teeW, err := os.Pipe()
	if err != nil {
		notesW.Close()
		return err
	}
	defer teeR.Close()
	stderr := os.Stderr
	var leftover *os.File // nil: descriptor 4 is closed in the monitor
	if stdio != nil {
		stderr = stdio.OriginalStderr()
		if leftover, err = stdio.stderrReader(); err == nil {
			defer leftover.Close()
		}
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), monitorEnv+"=1", monitorLogEnv+"="+logPath)
	cmd.Stdin, cmd.Stderr = crashR, stderr
	cmd.ExtraFiles = []*os.File{notesR, leftover, teeR}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		notesW.Close()
		teeW.Close()
		return err
	}
	go cmd.Wait() // reaps a monitor that ends early
	if err := debug.SetCrashOutput(crashW, debug.CrashOptions{}); err != nil {
		notesW.Close()
		teeW.Close()
		return err
	}
	if stdio != nil {
		stdio.setTee(teeW)
	} else {
		teeW.Close()
	}
	crashNotes.mu.Lock()
	crashNotes.w = notesW
	crashNotes.mu.Unlock()
	return nil
}

// noteCell tells the monitor which cell runs now: the execution count and
// the code, cut to fit one atomic pipe write. A note the pipe has no room
// for is dropped rather than waited for.
func noteCell(count int, code string) {
	crashNotes.mu.Lock()
	defer crashNotes.mu.Unlock()
	if crashNotes.w == nil {
		return
	}
	if len(code) > maxNote-64 {
		code = code[:maxNote-64]
	}
	note := "cell " + strconv.Itoa(count) + " " + strconv.Itoa(len(code)) + "\n" + code
	rc, err := crashNotes.w.SyscallConn()
	if err != nil {
		return
	}
	rc.Write(func(fd uintptr) bool {
		syscall.Write(int(fd), []byte(note))
		return true // one try: a full pipe drops the note
	})
}

// cellNote is a note of the monitor: a cell's execution count and code.
type cellNote struct {
	count int
	code  string
}

// runMonitor is the crash monitor's body (see above); it returns the
// process's exit status.
func runMonitor(crash, notes, leftover, tee *os.File, stderr io.Writer, logPath string) int {
	var last struct {
		sync.Mutex
		note *cellNote
		tail []byte // the end of what the tee brought
	}
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := tee.Read(buf)
			last.Lock()
			last.tail = append(last.tail, buf[:n]...)
			if len(last.tail) > maxTail {
				last.tail = append(last.tail[:0], last.tail[len(last.tail)-maxTail:]...)
			}
			last.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		r := bufio.NewReader(notes)
		for {
			n, err := readNote(r)
			if err != nil {
				return
			}
			last.Lock()
			last.note = n
			last.Unlock()
		}
	}()
	trace, _ := io.ReadAll(io.LimitReader(crash, maxTrace))
	io.Copy(io.Discard, crash)
	if len(trace) == 0 {
		return 0 // the kernel exited
	}
	time.Sleep(50 * time.Millisecond) // the last note and copy, written just before
	last.Lock()
	note, text := last.note, append(last.tail, readLeftover(leftover)...)
	last.Unlock()
	summary := crashSummary(headline(text), note)
	var log io.Writer
	if logPath != "" {
		if f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err == nil {
			defer f.Close()
			log = f
		}
	}
	io.WriteString(stderr, summary)
	if log != nil {
		io.WriteString(log, summary)
		log.Write(trace)
	} else {
		stderr.Write(trace)
	}
	return 0
}

// readNote reads one note: "cell COUNT LENGTH\n" and LENGTH bytes of code.
func readNote(r *bufio.Reader) (*cellNote, error) {
	head, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	var n cellNote
	var size int
	if _, err := fmt.Sscanf(head, "cell %d %d\n", &n.count, &size); err != nil || size < 0 || size > maxNote {
		return nil, fmt.Errorf("bad note %q", head)
	}
	code := make([]byte, size)
	if _, err := io.ReadFull(r, code); err != nil {
		return nil, err
	}
	n.code = string(code)
	return &n, nil
}

// readLeftover reads what the pipe behind the dead kernel's descriptor 2
// still holds, without waiting: children of the kernel may keep it open.
func readLeftover(f *os.File) []byte {
	if f == nil {
		return nil
	}
	fd := int(f.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		return nil
	}
	var out []byte
	buf := make([]byte, 64<<10)
	for len(out) < maxTrace {
		n, err := syscall.Read(fd, buf)
		if n <= 0 || err != nil && !errors.Is(err, syscall.EINTR) {
			break
		}
		out = append(out, buf[:n]...)
	}
	return out
}

// headline picks the lines naming a fatal error out of what the kernel
// wrote to its descriptor 2 last: the "fatal error: ..." or "panic: ..."
// line, with the "runtime: ..." lines just before it, which give the
// details (the size of the allocation that failed).
func headline(text []byte) string {
	lines := strings.Split(string(bytes.TrimRight(text, "\n")), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "fatal error: ") && !strings.HasPrefix(l, "panic: ") {
			continue
		}
		start := i
		for start > 0 && i-start < 3 && strings.HasPrefix(lines[start-1], "runtime: ") {
			start--
		}
		return strings.Join(lines[start:i+1], "\n")
	}
	return ""
}

// crashSummary is what the monitor writes first: the headline and the cell
// that was running.
func crashSummary(head string, note *cellNote) string {
	var b strings.Builder
	b.WriteString("pathnotes kernel: the kernel process died")
	if head == "" {
		b.WriteString(" of a fatal error of the Go runtime (its line is lost; the traces follow)\n")
	} else {
		b.WriteString(":\n" + head + "\n")
	}
	if note == nil {
		b.WriteString("(no cell was running)\n")
		return b.String()
	}
	fmt.Fprintf(&b, "while running Cell In[%d]:\n", note.count)
	lines := strings.Split(strings.TrimRight(note.code, "\n"), "\n")
	for i, l := range lines {
		if i == maxNoteLines {
			fmt.Fprintf(&b, "    ... %d more lines\n", len(lines)-i)
			break
		}
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}
