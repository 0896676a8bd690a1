//go:build !unix

package kernel

// startMonitor starts no crash monitor where there are no Unix pipes and
// process groups to give it (Windows): a kernel that dies leaves only what
// the runtime wrote to its standard error.
func startMonitor(*StdioCapture, string) error { return nil }

// noteCell does nothing without a crash monitor.
func noteCell(int, string) {}
