package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// Environment variables that make the kernel write profiles for `go tool
// pprof`, to find where its start and its cells spend time and memory.
const (
	cpuProfileEnv  = "PATHNOTES_CPUPROFILE"  // a CPU profile, from the start of `pathnotes kernel` to its end
	heapProfileEnv = "PATHNOTES_HEAPPROFILE" // a heap profile, written when the kernel ends
)

// startProfiles starts the profiles that $PATHNOTES_CPUPROFILE and
// $PATHNOTES_HEAPPROFILE ask for; the returned function ends them and
// writes the files.
func startProfiles() (stop func() error, err error) {
	stopCPU := func() error { return nil }
	if path := os.Getenv(cpuProfileEnv); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
		}
		stopCPU = func() error {
			pprof.StopCPUProfile()
			return f.Close()
		}
	}
	heapPath := os.Getenv(heapProfileEnv)
	return func() error {
		err := stopCPU()
		if heapPath == "" {
			return err
		}
		f, herr := os.Create(heapPath)
		if herr == nil {
			runtime.GC() // the profile then shows what is live, not garbage
			herr = pprof.WriteHeapProfile(f)
			if cerr := f.Close(); herr == nil {
				herr = cerr
			}
		}
		if herr != nil {
			herr = fmt.Errorf("%s: %w", heapProfileEnv, herr)
		}
		return errors.Join(err, herr)
	}, nil
}
