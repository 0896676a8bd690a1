package kernel

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
)

// ConnectionInfo is the content of a Jupyter connection file: where the
// kernel listens and how messages are signed. A port of 0 asks the kernel to
// pick a free one; Kernel.Connection reports the ports it bound.
type ConnectionInfo struct {
	Transport       string `json:"transport"` // "tcp" (or "ipc")
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	IOPubPort       int    `json:"iopub_port"`
	StdinPort       int    `json:"stdin_port"`
	ControlPort     int    `json:"control_port"`
	HBPort          int    `json:"hb_port"`
	Key             string `json:"key"`
	SignatureScheme string `json:"signature_scheme"`
	KernelName      string `json:"kernel_name,omitempty"`
}

// ReadConnectionFile reads and checks the connection file at path.
func ReadConnectionFile(path string) (ConnectionInfo, error) {
	var ci ConnectionInfo
	data, err := os.ReadFile(path)
	if err != nil {
		return ci, fmt.Errorf("connection file: %w", err)
	}
	if err := json.Unmarshal(data, &ci); err != nil {
		return ci, fmt.Errorf("connection file %s: %w", path, err)
	}
	if err := ci.check(); err != nil {
		return ci, fmt.Errorf("connection file %s: %w", path, err)
	}
	return ci, nil
}

// check rejects what the kernel cannot serve, before any socket is opened.
func (ci ConnectionInfo) check() error {
	if ci.Transport != "tcp" && ci.Transport != "ipc" {
		return fmt.Errorf("transport %q is not supported (want tcp or ipc)", ci.Transport)
	}
	if ci.IP == "" {
		return fmt.Errorf("no ip")
	}
	for name, p := range map[string]int{"shell_port": ci.ShellPort, "iopub_port": ci.IOPubPort,
		"stdin_port": ci.StdinPort, "control_port": ci.ControlPort, "hb_port": ci.HBPort} {
		if p < 0 || p > 65535 {
			return fmt.Errorf("%s %d is out of range 0..65535", name, p)
		}
	}
	if ci.Key != "" && ci.SignatureScheme != "hmac-sha256" {
		return fmt.Errorf("signature_scheme %q is not supported (want hmac-sha256)", ci.SignatureScheme)
	}
	return nil
}

// endpoint returns the ZeroMQ address of one channel. With the ipc
// transport, Jupyter names the socket file ip-port.
func (ci ConnectionInfo) endpoint(port int) string {
	if ci.Transport == "ipc" {
		return fmt.Sprintf("ipc://%s-%d", ci.IP, port)
	}
	return "tcp://" + net.JoinHostPort(ci.IP, strconv.Itoa(port))
}

// listenEndpoint is endpoint in the bounded scheme on which the kernel's
// sockets listen (see boundedNetworks).
func (ci ConnectionInfo) listenEndpoint(port int) string {
	if ci.Transport == "ipc" {
		return fmt.Sprintf("%s://%s-%d", boundedIPC, ci.IP, port)
	}
	return boundedTCP + "://" + net.JoinHostPort(ci.IP, strconv.Itoa(port))
}
