//go:build unix

package session

import (
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// lineCommand returns the command that runs a ! line: /bin/sh -c line.
func lineCommand(line string) *exec.Cmd {
	return exec.Command("/bin/sh", "-c", line)
}

// scriptCommand returns the command that runs script with the shell name of
// a cell magic: "sh" is /bin/sh, "bash" the bash found on PATH.
func scriptCommand(name, script string) (*exec.Cmd, error) {
	if name == "sh" {
		return exec.Command("/bin/sh", "-c", script), nil
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("%s is not installed (not found on PATH)", name)
	}
	return exec.Command(path, "-c", script), nil
}

// stopGrace is how long an interrupted command's process group has between
// SIGTERM and SIGKILL.
const stopGrace = 2 * time.Second

// ownGroup makes cmd the leader of a new process group, which holds the
// processes it starts, so that an interrupt can end them all.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// stopGroup ends the process group of a started cmd: SIGTERM, then SIGKILL
// for what is left after stopGrace. It returns once no live process of the
// group remains, or a second after the SIGKILL.
func stopGroup(cmd *exec.Cmd) {
	pgid := cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	if waitGroup(pgid, stopGrace) {
		return
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	waitGroup(pgid, time.Second)
}

// waitGroup reports whether process group pgid has no live process left,
// waiting up to d for that.
func waitGroup(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
