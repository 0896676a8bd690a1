//go:build windows

package session

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// lineCommand returns the command that runs a ! line: Windows has no
// /bin/sh, so the line goes to cmd /C (%ComSpec%).
func lineCommand(line string) *exec.Cmd {
	comspec := os.Getenv("ComSpec")
	if comspec == "" {
		comspec = "cmd.exe"
	}
	cmd := exec.Command(comspec)
	// cmd.exe parses its command line itself: /S /C "line" hands it line as
	// typed, quotes included.
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: fmt.Sprintf(`%s /S /C "%s"`, syscall.EscapeArg(comspec), line)}
	return cmd
}

// scriptCommand returns the command that runs script with the shell name of
// a cell magic ("sh" or "bash"), found on PATH (Git for Windows and MSYS2
// install both); Windows has neither by default.
func scriptCommand(name, script string) (*exec.Cmd, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("%s is not installed (not found on PATH; Windows has none by default, ! lines run cmd /C)", name)
	}
	return exec.Command(path, "-c", script), nil
}

// ownGroup starts cmd in a new process group, out of reach of the console
// control events meant for the kernel.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
}

// stopGroup ends a started cmd and the processes it started: taskkill /T
// ends the tree (Windows has no SIGTERM to send first), then the process
// itself is killed in case taskkill could not run.
func stopGroup(cmd *exec.Cmd) {
	exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid)).Run()
	cmd.Process.Kill()
}
