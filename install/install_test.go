package install

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestInstallPrefix(t *testing.T) {
	prefix := t.TempDir()
	exe := filepath.Join(prefix, "bin", "pathnotes")
	dir, err := Install(context.Background(), Options{Scope: Prefix, Prefix: prefix, Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(prefix, "share", "jupyter", "kernels", "pathnotes"); dir != want {
		t.Errorf("installed in %s, want %s", dir, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	argv := spec["argv"].([]any)
	if len(argv) != 3 || argv[0] != exe || argv[1] != "kernel" || argv[2] != "{connection_file}" {
		t.Errorf("argv %v", argv)
	}
	if spec["display_name"] != "Go (pathnotes)" || spec["language"] != "go" || spec["interrupt_mode"] != "message" {
		t.Errorf("kernel.json %s", data)
	}
	if _, ok := spec["metadata"].(map[string]any); !ok {
		t.Errorf("no metadata object in %s", data)
	}
	for _, logo := range []string{"logo-32x32.png", "logo-64x64.png"} {
		b, err := os.ReadFile(filepath.Join(dir, logo))
		if err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
			t.Errorf("%s: %v", logo, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("%d files in the kernelspec, want 3", len(entries))
	}
}

func TestInstallNamesAndRelativeExecutable(t *testing.T) {
	prefix := t.TempDir()
	t.Chdir(prefix)
	dir, err := Install(context.Background(), Options{Scope: Prefix, Prefix: ".", Name: "PathNotes-Dev",
		DisplayName: "Go (dev)", Executable: "pathnotes"})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(dir) != "pathnotes-dev" || !filepath.IsAbs(dir) {
		t.Errorf("installed in %s", dir)
	}
	var spec KernelSpec
	data, _ := os.ReadFile(filepath.Join(dir, "kernel.json"))
	json.Unmarshal(data, &spec)
	if !filepath.IsAbs(spec.Argv[0]) || spec.DisplayName != "Go (dev)" {
		t.Errorf("spec %+v", spec)
	}
	// Installing again replaces the spec, leaving nothing stale.
	os.WriteFile(filepath.Join(dir, "stale"), nil, 0o644)
	if _, err := Install(context.Background(), Options{Scope: Prefix, Prefix: ".", Name: "pathnotes-dev", Executable: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "stale")); !os.IsNotExist(err) {
		t.Error("a file of the old kernelspec survived reinstallation")
	}
	for _, bad := range []string{"go kernel", "a/b", "é"} {
		if _, err := Install(context.Background(), Options{Scope: Prefix, Prefix: ".", Name: bad, Executable: "x"}); err == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
	if _, err := Install(context.Background(), Options{Scope: Prefix, Prefix: "."}); err == nil {
		t.Error("no executable accepted")
	}
	if _, err := Install(context.Background(), Options{Scope: Prefix, Executable: "x"}); err == nil {
		t.Error("empty prefix accepted")
	}
}

func TestUserDataDir(t *testing.T) {
	t.Setenv("JUPYTER_DATA_DIR", "/jd")
	if d, _ := UserDataDir(); d != "/jd" {
		t.Errorf("with JUPYTER_DATA_DIR: %s", d)
	}
	t.Setenv("JUPYTER_DATA_DIR", "")
	d, err := UserDataDir()
	if err != nil {
		t.Fatal(err)
	}
	k, _ := KernelsDir(context.Background(), User, "")
	if k != filepath.Join(d, "kernels") {
		t.Errorf("user kernels dir %s", k)
	}
}

// fakePlatform is an operating system with the given environment and home
// directory ("" for none).
func fakePlatform(goos, home string, env map[string]string) platform {
	return platform{goos: goos, getenv: func(k string) string { return env[k] }, home: func() (string, error) {
		if home == "" {
			return "", errors.New("$HOME is not defined")
		}
		return home, nil
	}}
}

// TestPlatformDirs checks the Jupyter data directory and go install's bin
// directory of each operating system, whatever this one is.
func TestPlatformDirs(t *testing.T) {
	j := filepath.Join
	tests := []struct {
		goos, home string
		env        map[string]string
		data, bin  string // "" for an error
	}{
		{"linux", "/home/u", nil, j("/home/u", ".local", "share", "jupyter"), j("/home/u", "go", "bin")},
		{"linux", "/home/u", map[string]string{"XDG_DATA_HOME": "/xdg", "GOPATH": "/gp"}, j("/xdg", "jupyter"), j("/gp", "bin")},
		{"freebsd", "/home/u", map[string]string{"XDG_DATA_HOME": "/xdg"}, j("/xdg", "jupyter"), j("/home/u", "go", "bin")},
		{"darwin", "/Users/u", map[string]string{"XDG_DATA_HOME": "/xdg"}, j("/Users/u", "Library", "Jupyter"), j("/Users/u", "go", "bin")},
		{"darwin", "/Users/u", map[string]string{"JUPYTER_DATA_DIR": "/jd", "GOBIN": "/gobin"}, "/jd", "/gobin"},
		{"windows", "/users/u", map[string]string{"APPDATA": "/appdata", "XDG_DATA_HOME": "/xdg"}, j("/appdata", "jupyter"), j("/users/u", "go", "bin")},
		{"windows", "/users/u", nil, j("/users/u", "AppData", "Roaming", "jupyter"), j("/users/u", "go", "bin")},
		{"windows", "", map[string]string{"APPDATA": "/appdata"}, j("/appdata", "jupyter"), ""},
		{"linux", "", map[string]string{"GOBIN": "/gobin"}, "", "/gobin"},
	}
	for _, tt := range tests {
		p := fakePlatform(tt.goos, tt.home, tt.env)
		if d, err := p.userDataDir(); d != tt.data || (err == nil) != (tt.data != "") {
			t.Errorf("%s, home %q, env %v: data dir %q, %v; want %q", tt.goos, tt.home, tt.env, d, err, tt.data)
		}
		if d, err := p.binDir(); d != tt.bin || (err == nil) != (tt.bin != "") {
			t.Errorf("%s, home %q, env %v: bin dir %q, %v; want %q", tt.goos, tt.home, tt.env, d, err, tt.bin)
		}
	}
}

// TestSysPrefixFollowsJupyter puts a fake jupyter on PATH whose #! line names
// a fake Python that prints a prefix.
func TestSysPrefixFollowsJupyter(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts: not on Windows")
	}
	dir := t.TempDir()
	py := filepath.Join(dir, "python-fake")
	os.WriteFile(py, []byte("#!/bin/sh\necho /fake/prefix\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "jupyter"), []byte("#!"+py+"\n"), 0o755)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if p := SysPrefixDir(context.Background()); p != "/fake/prefix" {
		t.Errorf("sys prefix %s, want /fake/prefix", p)
	}
	k, _ := KernelsDir(context.Background(), SysPrefix, "")
	if k != "/fake/prefix/share/jupyter/kernels" {
		t.Errorf("sys-prefix kernels dir %s", k)
	}

	// A Python that cannot import jupyter_core is skipped.
	os.WriteFile(py, []byte("#!/bin/sh\nexit 1\n"), 0o755)
	want := "/usr/local"
	if exec.Command("/usr/bin/python3", "-c", "import jupyter_core").Run() == nil {
		out, _ := exec.Command("/usr/bin/python3", "-c", "import sys; print(sys.prefix)").Output()
		want = strings.TrimSpace(string(out))
	}
	if p := SysPrefixDir(context.Background()); p != want {
		t.Errorf("sys prefix %s, want %s", p, want)
	}
}

func TestShebang(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "script")
		os.WriteFile(p, []byte(s), 0o755)
		return p
	}
	if got := shebang(write("#!/usr/bin/python3 -u\nimport x\n")); got != "/usr/bin/python3" {
		t.Errorf("shebang %q", got)
	}
	if got := shebang(write("no shebang")); got != "" {
		t.Errorf("shebang of a plain file %q", got)
	}
	if sh, err := exec.LookPath("sh"); err == nil {
		if got := shebang(write("#!/usr/bin/env sh\n")); got != sh {
			t.Errorf("env shebang %q, want %q", got, sh)
		}
	}
}

func TestPersistentExecutable(t *testing.T) {
	tmp := t.TempDir()
	gorun := filepath.Join(tmp, "go-build123", "b001", "exe", "pathnotes")
	os.MkdirAll(filepath.Dir(gorun), 0o755)
	os.WriteFile(gorun, []byte("binary"), 0o700)
	for path, want := range map[string]bool{
		gorun: true,
		"/home/u/.cache/go-build/ec/ec14d1260d-d/pathnotes": true,
		"/usr/local/bin/pathnotes":                          false,
		"/home/u/go-projects/pathnotes":                     false,
	} {
		if IsGoRunBinary(path) != want {
			t.Errorf("IsGoRunBinary(%s) = %v", path, !want)
		}
	}
	gobin := filepath.Join(tmp, "gobin")
	t.Setenv("GOBIN", gobin)
	p, copied, err := PersistentExecutable(gorun)
	if err != nil || !copied || p != filepath.Join(gobin, "pathnotes") {
		t.Fatalf("PersistentExecutable = %s, %v, %v", p, copied, err)
	}
	data, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(data) != "binary" || st.Mode().Perm()&0o111 == 0 {
		t.Errorf("copy holds %q, mode %v", data, st.Mode())
	}
	if p, copied, _ := PersistentExecutable("/opt/pathnotes"); copied || p != "/opt/pathnotes" {
		t.Errorf("a normal binary was copied to %s", p)
	}
	t.Setenv("GOBIN", "")
	t.Setenv("GOPATH", filepath.Join(tmp, "gp")+string(os.PathListSeparator)+"/other")
	if d, _ := BinDir(); d != filepath.Join(tmp, "gp", "bin") {
		t.Errorf("BinDir from GOPATH: %s", d)
	}
}
