//go:build unix

package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// execute runs code with a deadline and returns the recorder, the result
// text and the error.
func execute(t *testing.T, s *Session, code string) (*recorder, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rec := newRecorder()
	b, err := s.Execute(ctx, code, rec)
	return rec, text(b), err
}

// shellError checks that err is a ShellError whose message holds each of want.
func shellError(t *testing.T, err error, want ...string) {
	t.Helper()
	var ce *CellError
	if !errors.As(err, &ce) || ce.Name != "ShellError" {
		t.Fatalf("error %v, want a ShellError", err)
	}
	for _, w := range want {
		if !strings.Contains(ce.Value, w) {
			t.Errorf("error %q lacks %q", ce.Value, w)
		}
	}
}

func TestShellBangEcho(t *testing.T) {
	s := newSession(t)
	rec, res, err := execute(t, s, "!echo hi")
	if err != nil {
		t.Fatal(err)
	}
	if rec.stdout() != "hi\n" || res != "" {
		t.Errorf("stdout %q result %q, want \"hi\\n\" and none", rec.stdout(), res)
	}
	// Indented, with a line magic before it that the command sees.
	rec, _, err = execute(t, s, "%env PN_SHELL_TEST=42\n  !echo \"v=$PN_SHELL_TEST\"")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(rec.stdout(), "v=42\n") {
		t.Errorf("stdout %q, want it to end in v=42", rec.stdout())
	}
	if _, _, err := execute(t, s, "x := 1\n!\n"); err == nil || !strings.Contains(err.Error(), "line 2: ! without a command") {
		t.Errorf("a lone ! gave %v", err)
	}
}

func TestShellStderr(t *testing.T) {
	s := newSession(t)
	rec, _, err := execute(t, s, "!echo out; echo err >&2")
	if err != nil {
		t.Fatal(err)
	}
	if rec.stdout() != "out\n" || rec.stderr() != "err\n" {
		t.Errorf("stdout %q stderr %q, want out and err", rec.stdout(), rec.stderr())
	}
}

func TestShellExitStatus(t *testing.T) {
	s := newSession(t)
	rec, _, err := execute(t, s, "x := 1\n!echo before; exit 3\nfmt.Println(\"not reached\")")
	shellError(t, err, "exit status 3", "line 2", "echo before; exit 3")
	if rec.stdout() != "before\n" {
		t.Errorf("stdout %q, want only the command's", rec.stdout())
	}
	_, _, err = execute(t, s, "%%bash\nfalse")
	shellError(t, err, "%%bash", "exit status 1")
	_, _, err = execute(t, s, "!no-such-command-pathnotes")
	shellError(t, err, "exit status 127")
}

// streamWatch is an Output that closes first when "first" reaches stdout.
type streamWatch struct {
	*recorder
	once  sync.Once
	first chan struct{}
}

func (w *streamWatch) Stream(name, text string) {
	w.recorder.Stream(name, text)
	if name == "stdout" && strings.Contains(text, "first") {
		w.once.Do(func() { close(w.first) })
	}
}

func TestShellStreams(t *testing.T) {
	s := newSession(t)
	for _, code := range []string{"!echo first; sleep 1; echo second", "%%sh\necho first\nsleep 1\necho second"} {
		w := &streamWatch{recorder: newRecorder(), first: make(chan struct{})}
		done := make(chan error, 1)
		go func() {
			_, err := s.Execute(context.Background(), code, w)
			done <- err
		}()
		select {
		case <-w.first:
		case err := <-done:
			t.Fatalf("%q ended (%v) before its first line was sent: output %q", code, err, w.stdout())
		case <-time.After(10 * time.Second):
			t.Fatalf("%q: no output after 10s", code)
		}
		if strings.Contains(w.stdout(), "second") {
			t.Errorf("%q: second line sent with the first", code)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if w.stdout() != "first\nsecond\n" {
			t.Errorf("%q: stdout %q", code, w.stdout())
		}
	}
}

func TestShellStdinClosed(t *testing.T) {
	s := newSession(t)
	start := time.Now()
	rec, _, err := execute(t, s, "!cat; read x || echo eof")
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cat took %v", d)
	}
	if rec.stdout() != "eof\n" || rec.prompts != 0 {
		t.Errorf("stdout %q, %d input prompts; want eof and none", rec.stdout(), rec.prompts)
	}
}

// live reports whether process pid exists and has not ended (a zombie that
// nobody reaps has ended).
func live(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err) && !errors.Is(err, syscall.ESRCH)
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || !strings.HasPrefix(string(stat[i+1:]), " Z")
}

func TestShellInterruptKillsGroup(t *testing.T) {
	s := newSession(t)
	for _, tc := range []struct{ name, code string }{
		{"term", "!sleep 100 & echo $$ $!; sleep 100"},
		// Both ignore SIGTERM: SIGKILL follows after the grace.
		{"kill", "%%sh\ntrap '' TERM\nsleep 100 &\necho $$ $!\nsleep 100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rec := newRecorder()
			done := make(chan error, 1)
			go func() {
				_, err := s.Execute(ctx, tc.code, rec)
				done <- err
			}()
			var pids []int
			for deadline := time.Now().Add(10 * time.Second); len(pids) < 2; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("no pids printed: %q", rec.stdout())
				}
				pids = pids[:0]
				if out := rec.stdout(); strings.HasSuffix(out, "\n") {
					for _, f := range strings.Fields(out) {
						n, err := strconv.Atoi(f)
						if err != nil {
							t.Fatalf("stdout %q", out)
						}
						pids = append(pids, n)
					}
				}
			}
			pgid := pids[0]
			if g, err := syscall.Getpgid(pgid); err != nil || g != pgid {
				t.Fatalf("the shell %d leads group %d (%v), want its own", pgid, g, err)
			}
			start := time.Now()
			cancel()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the interrupted cell did not end")
			}
			var ce *CellError
			if !errors.As(err, &ce) || ce.Name != "Interrupted" {
				t.Fatalf("error %v, want Interrupted", err)
			}
			if tc.name == "kill" && time.Since(start) < stopGrace {
				t.Errorf("SIGKILL came after %v, before the grace of %v", time.Since(start), stopGrace)
			}
			for _, pid := range pids {
				if live(pid) {
					t.Errorf("process %d of the group still runs", pid)
				}
			}
			if syscall.Kill(-pgid, 0) != syscall.ESRCH && groupAlive(pgid) {
				t.Errorf("process group %d still has live processes", pgid)
			}
		})
	}
	if got := run(t, s, "1 + 1"); got != "2" {
		t.Errorf("after the interrupts the session gives %q", got)
	}
}

func TestShellBashScript(t *testing.T) {
	s := newSession(t)
	rec, _, err := execute(t, s, "%%bash\nfor i in 1 2 3; do\n  echo \"n$i\"\ndone\narr=(a b)\necho ${#arr[@]} >&2")
	if err != nil {
		t.Fatal(err)
	}
	if rec.stdout() != "n1\nn2\nn3\n" || rec.stderr() != "2\n" {
		t.Errorf("stdout %q stderr %q", rec.stdout(), rec.stderr())
	}
	// The shell's messages give the cell's line numbers.
	rec, _, err = execute(t, s, "%%bash\necho a\nno-such-command-pathnotes")
	shellError(t, err, "exit status 127")
	if !strings.Contains(rec.stderr(), "line 3") {
		t.Errorf("stderr %q does not name line 3", rec.stderr())
	}
	if _, _, err := execute(t, s, "%%bash -x\necho"); err == nil || !strings.Contains(err.Error(), "takes no arguments") {
		t.Errorf("%%%%bash -x gave %v", err)
	}
}

func TestShellPwd(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })
	s := newSession(t)
	if got := run(t, s, "%pwd"); got != wd {
		t.Errorf("%%pwd = %q, want %q", got, wd)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run(t, s, "%cd "+dir)
	if got := run(t, s, "%pwd"); got != dir {
		t.Errorf("%%pwd after %%cd = %q, want %q", got, dir)
	}
	rec, _, err := execute(t, s, "!pwd -P")
	if err != nil {
		t.Fatal(err)
	}
	if rec.stdout() != dir+"\n" {
		t.Errorf("!pwd = %q, want %q", rec.stdout(), dir)
	}
}

func TestShellBangBetweenGo(t *testing.T) {
	s := newSession(t)
	rec, res, err := execute(t, s, "x := 2\n!echo shell-$((1+1))\nfmt.Println(\"go\", x)\ny := x * 3\n!echo after\ny")
	if err != nil {
		t.Fatal(err)
	}
	if rec.stdout() != "shell-2\ngo 2\nafter\n" || res != "6" {
		t.Errorf("stdout %q result %q", rec.stdout(), res)
	}
	if got := run(t, s, "x + y"); got != "8" {
		t.Errorf("x + y = %q after the mixed cell", got)
	}
	// A Go error keeps the cell's line number and stops the cell.
	rec, _, err = execute(t, s, "a := 1\n!echo one\n_ = nope\n!echo two")
	var ce *CellError
	if !errors.As(err, &ce) || !strings.Contains(ce.Value, "line 3, ") {
		t.Fatalf("error %v, want one on cell line 3", err)
	}
	if rec.stdout() != "one\n" {
		t.Errorf("stdout %q, want only the first command", rec.stdout())
	}
	// ! that continues Go, in a raw string or in brackets is Go.
	for code, want := range map[string]string{
		"ok := true &&\n\t!true\nok":                                          "false",
		"s := `\n!not shell\n`\nlen(s)":                                       "12",
		"f := func() bool {\n\treturn false\n}\nv := []bool{\n!f(),\n}\nv[0]": "true",
	} {
		if got := run(t, s, code); got != want {
			t.Errorf("%q = %q, want %q", code, got, want)
		}
	}
	// %%time runs mixed cells too.
	rec, _, err = execute(t, s, "%%time\nz := 1\n!echo timed")
	if err != nil || !strings.HasPrefix(rec.stdout(), "timed\nWall time: ") {
		t.Errorf("%%%%time: stdout %q, error %v", rec.stdout(), err)
	}
}

func TestShellHelp(t *testing.T) {
	s := newSession(t)
	got := run(t, s, "%help")
	for _, w := range []string{"%pwd", "%%sh", "%%bash", "!COMMAND", "/bin/sh -c"} {
		if !strings.Contains(got, w) {
			t.Errorf("%%help lacks %s:\n%s", w, got)
		}
	}
	if st, _ := s.IsComplete("!ls -l 'x"); st != "complete" {
		t.Errorf("IsComplete of a ! line = %q", st)
	}
}
