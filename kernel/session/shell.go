package session

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// shellHelp is what %help says of ! lines, after the magics.
const shellHelp = "  !COMMAND               a line starting with ! runs COMMAND with /bin/sh -c (cmd /C on Windows),\n" +
	"                         in order with the Go lines around it; a failing command stops the cell"

// drainWait bounds how long a command that has exited may keep its output
// pipes open (a job it left running in the background) before the cell goes
// on; the job's later output goes to the latest cell, as a goroutine's does.
const drainWait = 300 * time.Millisecond

// shellMagics returns the built-in magics that reach the operating system:
// the working directory, and scripts run in it.
func shellMagics() []Magic {
	return []Magic{
		{Name: "cd", Usage: "%cd [DIR]", Help: "change the working directory (home without DIR) and print it", Run: magicCd},
		{Name: "pwd", Usage: "%pwd", Help: "print the working directory (that of ! lines, %%sh and %%bash)", Run: magicPwd},
		{Name: "sh", Cell: true, Usage: "%%sh", Help: "run the cell as a /bin/sh script (output streamed, stdin closed)", Run: scriptMagic("sh")},
		{Name: "bash", Cell: true, Usage: "%%bash", Help: "run the cell as a bash script (output streamed, stdin closed)", Run: scriptMagic("bash")},
	}
}

// magicCd is %cd: it changes the working directory of the process, where
// ! lines, scripts and relative imports of local packages start.
func magicCd(_ context.Context, _ *Session, args, _ string, _ Output) (*Bundle, error) {
	dir := args
	if dir == "" || dir == "~" || strings.HasPrefix(dir, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, err
		}
		dir = filepath.Join(home, strings.TrimPrefix(strings.TrimPrefix(dir, "~"), "/"))
	}
	if err := os.Chdir(dir); err != nil {
		return nil, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return TextBundle(wd), nil
}

func magicPwd(_ context.Context, _ *Session, _, _ string, _ Output) (*Bundle, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return TextBundle(wd), nil
}

// scriptMagic returns the Run of the cell magic that hands its body to the
// shell name ("sh" or "bash").
func scriptMagic(name string) func(context.Context, *Session, string, string, Output) (*Bundle, error) {
	return func(ctx context.Context, s *Session, args, body string, _ Output) (*Bundle, error) {
		if args != "" {
			return nil, fmt.Errorf("takes no arguments, got %q (the script starts on the next line)", args)
		}
		// The body keeps the blank lines in front of it: the shell's own
		// messages ("line 3: ...") then give the cell's line numbers.
		cmd, err := scriptCommand(name, body)
		if err != nil {
			return nil, &CellError{Name: "ShellError", Value: "%%" + name + ": " + err.Error()}
		}
		return nil, s.runCommand(ctx, cmd, "%%"+name+" script")
	}
}

// runMixed runs code whose lines may be Go or shell commands (! lines): the
// Go between two shell lines runs as a cell of its own, then the shell line,
// in the cell's order, until the first error. The bundle is that of a
// trailing Go expression of the last stretch of Go; Go error positions stay
// those of the cell, written "Cell In[4], line 3, column 5".
func (s *Session) runMixed(ctx context.Context, code string, out Output) (*Bundle, error) {
	b, err := s.runSegments(ctx, code)
	return b, s.cellPositions(err)
}

// runSegments runs the Go and shell segments of code in turn.
func (s *Session) runSegments(ctx context.Context, code string) (*Bundle, error) {
	segs := splitShell(code)
	if len(segs) == 1 && !segs[0].shell {
		return s.runCode(ctx, code)
	}
	var result *Bundle
	for _, sg := range segs {
		result = nil
		if !sg.shell {
			b, err := s.runCode(ctx, sg.text)
			if err != nil {
				return nil, err
			}
			result = b
			continue
		}
		if sg.text == "" {
			return nil, &CellError{Name: "UsageError", Value: fmt.Sprintf("line %d: ! without a command", sg.line+1)}
		}
		what := fmt.Sprintf("line %d: !%s", sg.line+1, shorten(sg.text))
		if err := s.runCommand(ctx, lineCommand(sg.text), what); err != nil {
			return nil, err
		}
	}
	return result, nil
}

// segment is a stretch of a cell: Go code (preceded by blank lines so that
// its line numbers are the cell's) or one shell command.
type segment struct {
	shell bool
	line  int    // 0-based line of a shell command
	text  string // the Go code, or the command without its !
}

// splitShell cuts code at its shell lines: lines whose first character
// other than a space or tab is !, where a Go statement may start (outside
// brackets, raw strings and comments, and not after a line that continues,
// such as one ending in &&). Code without shell lines is one Go segment.
func splitShell(code string) []segment {
	var segs []segment
	var goText strings.Builder
	goStart := 0
	flushGo := func() {
		if strings.TrimSpace(goText.String()) != "" {
			segs = append(segs, segment{text: strings.Repeat("\n", goStart) + goText.String()})
		}
		goText.Reset()
	}
	for i, line := range strings.SplitAfter(code, "\n") {
		t := strings.TrimLeft(line, " \t")
		if strings.HasPrefix(t, "!") && statementBoundary(goText.String()) {
			flushGo()
			segs = append(segs, segment{shell: true, line: i, text: strings.TrimSpace(t[1:])})
			goStart = i + 1
			continue
		}
		goText.WriteString(line)
	}
	flushGo()
	if len(segs) == 0 {
		segs = append(segs, segment{text: code})
	}
	return segs
}

// statementBoundary reports whether a new top-level Go statement may start
// after src: every bracket closed, no raw string or comment open, and the
// last line ended by a semicolon (written or inserted at its end).
func statementBoundary(src string) bool {
	open, last := false, token.SEMICOLON
	depth := scanBrackets(src, func(msg string) {
		if strings.HasSuffix(msg, "not terminated") {
			open = true
		}
	}, func(tok token.Token, _ int) bool {
		last = tok
		return true
	})
	return !open && depth == 0 && last == token.SEMICOLON
}

// shorten returns a command on one line, cut to a length that fits an error.
func shorten(cmd string) string {
	cmd = strings.Join(strings.Fields(cmd), " ")
	if r := []rune(cmd); len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return cmd
}

// runCommand runs cmd in the session's working directory with stdin closed,
// its stdout and stderr streamed to the cell's as they come. Cancelling ctx
// ends the command's whole process group. what names the command in errors:
// a start failure, an exit status other than 0, an interrupt.
func (s *Session) runCommand(ctx context.Context, cmd *exec.Cmd, what string) error {
	if ctx.Err() != nil {
		return interrupted()
	}
	s.flushStreams() // what the Go code printed shows first
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return err
	}
	cmd.Stdin = nil // the null device
	cmd.Stdout, cmd.Stderr = outW, errW
	ownGroup(cmd)
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return &CellError{Name: "ShellError", Value: fmt.Sprintf("%s: cannot start %s: %v", what, cmd.Path, err)}
	}
	drained := make(chan struct{}, 2)
	go forward(s.stdout.w, outR, drained)
	go forward(s.stderr.w, errR, drained)

	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	stopped := false
	select {
	case <-exited:
	case <-ctx.Done():
		stopGroup(cmd)
		<-exited
		stopped = true
	}
	timeout := time.After(drainWait)
	for n := 0; n < 2; n++ {
		select {
		case <-drained:
		case <-timeout:
			n = 2
		}
	}
	if stopped {
		return interrupted()
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		return &CellError{Name: "ShellError", Value: fmt.Sprintf("%s failed (%v)", what, ee)}
	}
	if waitErr != nil {
		return &CellError{Name: "ShellError", Value: fmt.Sprintf("%s: %v", what, waitErr)}
	}
	return nil
}

// forward copies what a command writes to r into the session's stream w as
// it comes, until the command and the jobs it started close their end, then
// signals done.
func forward(w, r *os.File, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	defer r.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return // the session is closed
			}
		}
		if err != nil {
			return
		}
	}
}
