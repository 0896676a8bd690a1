// Package install writes the Jupyter kernelspec of pathnotes — kernel.json
// and the two logos — where Jupyter looks for kernels, laid out exactly as
// `jupyter kernelspec install` lays it out:
//
//	--user        the Jupyter data directory of the user
//	--sys-prefix  sys.prefix/share/jupyter/kernels of the Python that runs jupyter
//	--prefix DIR  DIR/share/jupyter/kernels
//
// so that `jupyter console --kernel pathnotes`, JupyterLab, VS Code and
// nbclient find the kernel.
package install

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/pathnotes/pathnotes/internal/atomicfile"
)

// DefaultName and DefaultDisplayName name the kernelspec when the options
// do not.
const (
	DefaultName        = "pathnotes"
	DefaultDisplayName = "Go (pathnotes)"
)

// Scope says which kernels directory Install writes to.
type Scope int

// The scopes of `jupyter kernelspec install`.
const (
	User      Scope = iota // the user's Jupyter data directory
	SysPrefix              // sys.prefix of the Python that runs jupyter
	Prefix                 // Options.Prefix/share/jupyter
)

// Options configure Install.
type Options struct {
	Scope       Scope
	Prefix      string // the directory of Scope Prefix
	Name        string // kernelspec directory name; "" is DefaultName
	DisplayName string // name shown by front ends; "" is DefaultDisplayName
	// Executable is the pathnotes binary that kernel.json starts; it is
	// made absolute. Required.
	Executable string
}

//go:embed kernelspec/logo-32x32.png kernelspec/logo-64x64.png
var assets embed.FS

// validName is what Jupyter accepts as a kernel name.
var validName = regexp.MustCompile(`^[a-z0-9._-]+$`)

// KernelSpec is the content of kernel.json.
type KernelSpec struct {
	Argv          []string       `json:"argv"`
	DisplayName   string         `json:"display_name"`
	Language      string         `json:"language"`
	InterruptMode string         `json:"interrupt_mode"`
	Metadata      map[string]any `json:"metadata"`
}

// NewKernelSpec returns the kernelspec that starts executable (an absolute
// path) as `executable kernel {connection_file}`. Interrupts are messages on
// the control socket, which work the same on every platform.
func NewKernelSpec(executable, displayName string) KernelSpec {
	return KernelSpec{
		Argv:          []string{executable, "kernel", "{connection_file}"},
		DisplayName:   displayName,
		Language:      "go",
		InterruptMode: "message",
		Metadata:      map[string]any{"debugger": false},
	}
}

// KernelsDir returns the kernels directory of a scope: the directory in
// which Install creates the kernelspec's own directory.
func KernelsDir(ctx context.Context, scope Scope, prefix string) (string, error) {
	switch scope {
	case User:
		d, err := UserDataDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(d, "kernels"), nil
	case SysPrefix:
		return filepath.Join(SysPrefixDir(ctx), "share", "jupyter", "kernels"), nil
	case Prefix:
		if prefix == "" {
			return "", errors.New("install: --prefix needs a directory")
		}
		abs, err := filepath.Abs(prefix)
		if err != nil {
			return "", fmt.Errorf("install: prefix %q: %w", prefix, err)
		}
		return filepath.Join(abs, "share", "jupyter", "kernels"), nil
	}
	return "", fmt.Errorf("install: unknown scope %d", scope)
}

// UserDataDir returns the user's Jupyter data directory, as jupyter_core
// computes it: $JUPYTER_DATA_DIR, else ~/Library/Jupyter on macOS,
// %APPDATA%\jupyter on Windows, and $XDG_DATA_HOME/jupyter or
// ~/.local/share/jupyter elsewhere.
func UserDataDir() (string, error) { return hostPlatform().userDataDir() }

// platform is what the per-OS directories depend on: the operating system
// (a GOOS value), the environment and the home directory. hostPlatform is
// this process's; tests pass others, to check every OS's rules on any
// machine.
type platform struct {
	goos   string
	getenv func(key string) string
	home   func() (string, error)
}

func hostPlatform() platform { return platform{runtime.GOOS, os.Getenv, os.UserHomeDir} }

func (p platform) userDataDir() (string, error) {
	if d := p.getenv("JUPYTER_DATA_DIR"); d != "" {
		return d, nil
	}
	if p.goos == "windows" {
		if d := p.getenv("APPDATA"); d != "" {
			return filepath.Join(d, "jupyter"), nil
		}
	}
	home, err := p.home()
	if err != nil {
		return "", fmt.Errorf("install: no home directory for the Jupyter data directory: %w", err)
	}
	switch p.goos {
	case "darwin":
		return filepath.Join(home, "Library", "Jupyter"), nil
	case "windows":
		return filepath.Join(home, "AppData", "Roaming", "jupyter"), nil
	}
	if d := p.getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "jupyter"), nil
	}
	return filepath.Join(home, ".local", "share", "jupyter"), nil
}

// SysPrefixDir returns sys.prefix of the Python that runs jupyter: the
// interpreter named on the first line of the jupyter command on PATH, else
// /usr/bin/python3, provided that it can import jupyter_core; /usr/local
// when none can.
func SysPrefixDir(ctx context.Context) string {
	var pythons []string
	if j, err := exec.LookPath("jupyter"); err == nil {
		if py := shebang(j); py != "" {
			pythons = append(pythons, py)
		}
	}
	pythons = append(pythons, "/usr/bin/python3")
	for _, py := range pythons {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		out, err := exec.CommandContext(ctx, py, "-c", "import sys, jupyter_core; print(sys.prefix)").Output()
		cancel()
		if p := strings.TrimSpace(string(out)); err == nil && p != "" {
			return p
		}
	}
	return "/usr/local"
}

// shebang returns the interpreter of a script's #! line, or "".
func shebang(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line := make([]byte, 256)
	n, _ := io.ReadFull(f, line)
	first, _, _ := bytes.Cut(line[:n], []byte("\n"))
	if !bytes.HasPrefix(first, []byte("#!")) {
		return ""
	}
	fields := strings.Fields(string(first[2:]))
	if len(fields) == 0 {
		return ""
	}
	if filepath.Base(fields[0]) == "env" && len(fields) > 1 {
		if p, err := exec.LookPath(fields[1]); err == nil {
			return p
		}
		return ""
	}
	return fields[0]
}

// Install writes the kernelspec directory (kernel.json, logo-32x32.png,
// logo-64x64.png) and returns its path. An existing kernelspec of the same
// name is replaced, as `jupyter kernelspec install` replaces it. Names are
// lower-cased, as Jupyter does.
func Install(ctx context.Context, opts Options) (string, error) {
	name := strings.ToLower(opts.Name)
	if name == "" {
		name = DefaultName
	}
	if !validName.MatchString(name) {
		return "", fmt.Errorf("install: kernel name %q: use letters, digits, '.', '_' and '-' only", opts.Name)
	}
	display := opts.DisplayName
	if display == "" {
		display = DefaultDisplayName
	}
	if opts.Executable == "" {
		return "", errors.New("install: no executable to start the kernel")
	}
	exe, err := filepath.Abs(opts.Executable)
	if err != nil {
		return "", fmt.Errorf("install: executable %q: %w", opts.Executable, err)
	}
	kernels, err := KernelsDir(ctx, opts.Scope, opts.Prefix)
	if err != nil {
		return "", err
	}
	spec, err := json.MarshalIndent(NewKernelSpec(exe, display), "", "  ")
	if err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	files := map[string][]byte{"kernel.json": append(spec, '\n')}
	for _, logo := range []string{"logo-32x32.png", "logo-64x64.png"} {
		if files[logo], err = assets.ReadFile("kernelspec/" + logo); err != nil {
			return "", fmt.Errorf("install: %w", err)
		}
	}
	dir := filepath.Join(kernels, name)
	if err := replaceDir(dir, files); err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	return dir, nil
}

// replaceDir makes dir a directory holding files and nothing else. The new
// directory is built beside dir under a temporary name and then swapped in:
// the old one is renamed aside, the new one renamed to dir and the old one
// removed. A failure at any step before the swap completes leaves the old
// directory in place, and no temporary directory behind.
func replaceDir(dir string, files map[string][]byte) (err error) {
	parent, base := filepath.Split(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".new*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it 0700
		return err
	}
	for file, data := range files {
		if err := atomicfile.WriteFile(filepath.Join(tmp, file), data, 0o644); err != nil {
			return err
		}
	}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(tmp, dir)
	}
	old := tmp + ".old"
	if err := os.Rename(dir, old); err != nil {
		return fmt.Errorf("replacing %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if rerr := os.Rename(old, dir); rerr != nil {
			return fmt.Errorf("replacing %s: %w; the old kernelspec is left at %s: %w", dir, err, old, rerr)
		}
		return fmt.Errorf("replacing %s: %w", dir, err)
	}
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("%s is installed, but removing the old one at %s: %w", dir, old, err)
	}
	return nil
}

// IsGoRunBinary reports whether exe is a binary of `go run`: a temporary
// one (in a go-build* directory, deleted when the program exits) or one kept
// in the go build cache (GOCACHE, .../go-build/xx/..., deleted when the cache
// is trimmed or cleaned). Neither may be named in a kernelspec.
func IsGoRunBinary(exe string) bool {
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// BinDir returns where `go install` puts binaries: $GOBIN, else the bin
// directory of the first entry of $GOPATH, else ~/go/bin.
func BinDir() (string, error) { return hostPlatform().binDir() }

func (p platform) binDir() (string, error) {
	if d := p.getenv("GOBIN"); d != "" {
		return d, nil
	}
	if gp := filepath.SplitList(p.getenv("GOPATH")); len(gp) > 0 && gp[0] != "" {
		return filepath.Join(gp[0], "bin"), nil
	}
	home, err := p.home()
	if err != nil {
		return "", fmt.Errorf("install: no home directory for ~/go/bin: %w", err)
	}
	return filepath.Join(home, "go", "bin"), nil
}

// PersistentExecutable returns a path to exe that outlives this process:
// exe itself, or, for a binary of `go run`, a copy in BinDir (copied
// reports which).
func PersistentExecutable(exe string) (path string, copied bool, err error) {
	if !IsGoRunBinary(exe) {
		return exe, false, nil
	}
	dir, err := BinDir()
	if err != nil {
		return "", false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, fmt.Errorf("install: %w", err)
	}
	dst := filepath.Join(dir, filepath.Base(exe))
	if err := copyFile(exe, dst); err != nil {
		return "", false, fmt.Errorf("install: copying the go run binary to %s: %w", dst, err)
	}
	return dst, true, nil
}

// copyFile copies an executable through a temporary file and a rename, so
// that a kernel running the old binary keeps it intact. The copy is made
// executable (0755) whatever the mode of the file it replaces.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := atomicfile.Create(dst, 0o755)
	if err != nil {
		return err
	}
	defer out.Abort()
	if err := out.Chmod(0o755); err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		return err
	}
	return out.Commit()
}
