package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProfilesWrittenWhereTheEnvironmentSays(t *testing.T) {
	dir := t.TempDir()
	cpuPath, heapPath := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "heap.pprof")
	t.Setenv(cpuProfileEnv, cpuPath)
	t.Setenv(heapProfileEnv, heapPath)
	stop, err := startProfiles()
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{cpuPath, heapPath} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) { // pprof files are gzipped
			t.Errorf("%s: %d bytes, not a gzipped profile", filepath.Base(p), len(data))
		}
	}
}

func TestProfilesOffByDefault(t *testing.T) {
	t.Setenv(cpuProfileEnv, "")
	t.Setenv(heapProfileEnv, "")
	stop, err := startProfiles()
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Errorf("stop with no profiles: %v", err)
	}
}

func TestProfileErrorNamesTheVariable(t *testing.T) {
	t.Setenv(heapProfileEnv, "")
	t.Setenv(cpuProfileEnv, filepath.Join(t.TempDir(), "no", "such", "dir", "cpu.pprof"))
	if _, err := startProfiles(); err == nil || !strings.Contains(err.Error(), cpuProfileEnv) {
		t.Errorf("err = %v, want one naming %s", err, cpuProfileEnv)
	}
	t.Setenv(cpuProfileEnv, "")
	t.Setenv(heapProfileEnv, filepath.Join(t.TempDir(), "no", "such", "dir", "heap.pprof"))
	stop, err := startProfiles()
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err == nil || !strings.Contains(err.Error(), heapProfileEnv) {
		t.Errorf("stop: err = %v, want one naming %s", err, heapProfileEnv)
	}
}
