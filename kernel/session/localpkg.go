package session

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing/fstest"
)

// Local packages are Go packages in directories of the file system (beside
// the notebook), interpreted from source. The interpreter loads source
// packages by import path from its source file system; the session gives
// each version of a local package an import path of its own,
// "local/NAME" for the first, "local/NAME@2" for the next, and serves the
// package's files under it, with the imports of other local packages
// rewritten to their versions' paths. A new path is what lets an edited
// package be imported again: yaegi keeps a package for good once imported.

// localPrefix is the first element of the import paths of local packages.
const localPrefix = "local"

// localPkg is one version of a local package.
type localPkg struct {
	dir   string // absolute directory
	shown string // dir as messages show it: relative to the working directory at load
	name  string // package name
	vpath string // import path of this version in the interpreter
	key   string // hash of its files and of its local imports' versions
	docs  *pkgDocs
}

// localFile is a file of a local package as served to the interpreter.
type localFile struct {
	display string // name in positions: relative to the working directory at load
	src     []byte // source, local imports rewritten
}

// localPkgs are the local packages of one interpreter, and its source file
// system. Packages are loaded under the session's execMu; mu guards the
// maps, which inspection reads too.
type localPkgs struct {
	mu     sync.Mutex
	byDir  map[string]*localPkg // directory → latest version
	byPath map[string]*localPkg // import path of a version → version
	names  map[string]int       // package name → versions made
	tree   fstest.MapFS         // "local/NAME/FILE.go" (directories implied) → nothing
	files  map[string]localFile // same keys → content
}

func newLocalPkgs() *localPkgs {
	return &localPkgs{
		byDir:  map[string]*localPkg{},
		byPath: map[string]*localPkg{},
		names:  map[string]int{},
		tree:   fstest.MapFS{},
		files:  map[string]localFile{},
	}
}

// Open implements fs.FS for the interpreter: yaegi looks packages up under
// paths of its own making (GOPATH/src, vendor directories), which end in
// the import path; the last "local/NAME" of the path is the package.
func (l *localPkgs) Open(name string) (fs.File, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key, ok := l.key(name)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return l.tree.Open(key)
}

// ReadFile implements fs.ReadFileFS. It prefixes the source with a line
// directive that names the file as the user knows it: relative names in a
// directive are taken relative to the directory of the file the parser is
// told, which is name.
func (l *localPkgs) ReadFile(name string) ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key, ok := l.key(name)
	f, found := l.files[key]
	if !ok || !found {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	display := f.display
	if !filepath.IsAbs(display) {
		depth := len(strings.Split(path.Dir(name), "/"))
		if path.Dir(name) == "." {
			depth = 0
		}
		display = strings.Repeat("../", depth) + display
	}
	return append([]byte("/*line "+display+":1:1*/"), f.src...), nil
}

// get returns the version whose import path is vpath, nil if none.
func (l *localPkgs) get(vpath string) *localPkg {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byPath[vpath]
}

// current returns the latest version of the package in dir, nil if none.
func (l *localPkgs) current(dir string) *localPkg {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byDir[dir]
}

// forget makes p no longer the latest version of its package, if it is:
// the next import of the package makes a new version.
func (l *localPkgs) forget(p *localPkg) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byDir[p.dir] == p {
		delete(l.byDir, p.dir)
	}
}

// key maps a path the interpreter opens to the key of tree.
func (l *localPkgs) key(name string) (string, bool) {
	segs := strings.Split(name, "/")
	for j := len(segs) - 2; j >= 0; j-- {
		if segs[j] != localPrefix || l.byPath[segs[j]+"/"+segs[j+1]] == nil {
			continue
		}
		if rest := segs[j+2:]; len(rest) <= 1 {
			return strings.Join(segs[j:], "/"), true
		}
		return "", false
	}
	return "", false
}

// module is a Go module found by its go.mod file.
type module struct {
	path, dir string
}

// findModule returns the module of the nearest go.mod at dir or above; ok
// is false when there is none or it names no module.
func findModule(dir string) (module, bool) {
	for {
		if p, ok := modulePath(filepath.Join(dir, "go.mod")); ok {
			return module{path: p, dir: dir}, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return module{}, false
		}
		dir = parent
	}
}

// modulePath reads the module path of a go.mod file.
func modulePath(file string) (string, bool) {
	f, err := os.Open(file)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		fields := strings.Fields(line)
		if len(fields) == 2 && fields[0] == "module" {
			if p, err := strconv.Unquote(fields[1]); err == nil {
				return p, true
			}
			return fields[1], true
		}
	}
	return "", false
}

// isRelativeImport reports whether an import path is relative to the
// importing directory: ".", "..", or starting with "./" or "../".
func isRelativeImport(p string) bool {
	return p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")
}

// localDir returns the directory of a local import path imported from
// directory from: relative to from, or inside the module of from's go.mod.
// ok is false when p is not a local import path; where tells where a
// module's packages are looked for, for error messages.
func localDir(p, from string) (dir, where string, ok bool) {
	if isRelativeImport(p) {
		return filepath.Join(from, filepath.FromSlash(p)), "relative to " + from, true
	}
	m, found := findModule(from)
	if !found || (p != m.path && !strings.HasPrefix(p, m.path+"/")) {
		return "", "", false
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(p, m.path), "/")
	return filepath.Join(m.dir, filepath.FromSlash(rel)), fmt.Sprintf("in module %s (%s)", m.path, filepath.Join(m.dir, "go.mod")), true
}

// localLoad loads the local packages one import needs.
type localLoad struct {
	l     *localPkgs
	wd    string                 // working directory: file names are relative to it
	known func(path string) bool // packages bound into the interpreter
	done  map[string]*localPkg   // directory → version, for this import
	made  []*localPkg            // the new versions among done
	stack []string               // directories being loaded, for cycles
}

// load returns the version of the package in dir that matches its files
// now, making a new one when they or a local package it imports changed.
// where tells how dir was found, for errors.
func (ld *localLoad) load(dir, where string) (*localPkg, error) {
	if p := ld.done[dir]; p != nil {
		return p, nil
	}
	for i, d := range ld.stack {
		if d == dir {
			var cycle []string
			for _, c := range append(ld.stack[i:], dir) {
				cycle = append(cycle, ld.display(c))
			}
			return nil, fmt.Errorf("import cycle: %s", strings.Join(cycle, " imports "))
		}
	}
	ld.stack = append(ld.stack, dir)
	defer func() { ld.stack = ld.stack[:len(ld.stack)-1] }()

	names, err := goFiles(dir, where)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	h := sha256.New()
	pkgName := ""
	srcs := map[string][]byte{}
	var files []*ast.File
	var deps []string
	for _, n := range names {
		file := filepath.Join(dir, n)
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		// A byte order mark is allowed only at the start: it would follow
		// the line directive the file gets.
		src = bytes.TrimPrefix(src, []byte("\ufeff"))
		f, err := parser.ParseFile(fset, ld.display(file), src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
		switch {
		case f.Name.Name == "main":
			return nil, fmt.Errorf("%s: package main is a program, not a package to import", ld.display(file))
		case pkgName == "":
			pkgName = f.Name.Name
		case f.Name.Name != pkgName:
			return nil, fmt.Errorf("%s: package %s, but other files of %s are package %s", ld.display(file), f.Name.Name, dir, pkgName)
		}
		if srcs[n], err = ld.rewriteImports(fset, f, src, dir, &deps); err != nil {
			return nil, err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(src))
		h.Write(src)
	}
	fmt.Fprintf(h, "\x00%s", strings.Join(deps, "\x00"))
	key := hex.EncodeToString(h.Sum(nil))
	if cur := ld.l.current(dir); cur != nil && cur.key == key {
		ld.done[dir] = cur
		return cur, nil
	}
	p := ld.l.add(dir, pkgName, key, srcs, func(n string) string { return ld.display(filepath.Join(dir, n)) })
	p.docs = filesDocs(fset, files, p.vpath)
	p.shown = ld.display(dir)
	ld.done[dir] = p
	ld.made = append(ld.made, p)
	return p, nil
}

// rewriteImports checks the imports of a file and returns its source with
// the paths of local packages replaced by their versions' import paths
// (the line numbers stay). deps gets those paths.
func (ld *localLoad) rewriteImports(fset *token.FileSet, f *ast.File, src []byte, dir string, deps *[]string) ([]byte, error) {
	type edit struct {
		from, to int
		text     string
	}
	var edits []edit
	for _, is := range f.Imports {
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			return nil, err
		}
		pos := fset.Position(is.Path.Pos())
		if ld.known(p) {
			continue
		}
		depDir, where, ok := localDir(p, dir)
		if !ok {
			return nil, fmt.Errorf("%s: import %q: no such package (%s)", pos, p, missingHint(dir))
		}
		dep, err := ld.load(depDir, where)
		if err != nil {
			return nil, fmt.Errorf("%s: import %q: %w", pos, p, err)
		}
		*deps = append(*deps, dep.vpath)
		edits = append(edits, edit{pos.Offset, fset.Position(is.Path.End()).Offset, strconv.Quote(dep.vpath)})
	}
	out := make([]byte, 0, len(src)+32*len(edits))
	last := 0
	for _, e := range edits {
		out = append(append(out, src[last:e.from]...), e.text...)
		last = e.to
	}
	return append(out, src[last:]...), nil
}

// missingHint tells where import paths are looked for, from dir.
func missingHint(dir string) string {
	hint := "the interpreter knows the standard library, the packages bound into pathnotes, and local packages: " +
		"a directory relative to the importing one (\"./name\")"
	if m, ok := findModule(dir); ok {
		hint += fmt.Sprintf(" or a package of module %s (%s)", m.path, filepath.Join(m.dir, "go.mod"))
	} else {
		hint += " or a package of the module of a go.mod file (none found at " + dir + " or above)"
	}
	return hint
}

// display names a file as positions show it: relative to the working
// directory when it is below it or near it, absolute otherwise.
func (ld *localLoad) display(file string) string {
	if rel, err := filepath.Rel(ld.wd, file); err == nil && !strings.HasPrefix(rel, "../../") {
		return rel
	}
	return file
}

// goFiles lists the Go files of dir that a build for this system uses,
// tests left out.
func goFiles(dir, where string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("no directory %s (looked %s)", dir, where)
		}
		return nil, err
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, n); err != nil || !ok {
			continue
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no Go files in %s", dir)
	}
	sort.Strings(names)
	return names, nil
}

// add makes a new version of the package in dir and serves its files. The
// files of the version it replaces are dropped: the interpreter has read
// them already.
func (l *localPkgs) add(dir, name, key string, srcs map[string][]byte, display func(string) string) *localPkg {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.names[name]++
	tail := name
	if tail == localPrefix {
		tail += "_" // "local/local" would be taken for the package "local"
	}
	if n := l.names[name]; n > 1 {
		tail += "@" + strconv.Itoa(n)
	}
	p := &localPkg{dir: dir, name: name, vpath: localPrefix + "/" + tail, key: key}
	if old := l.byDir[dir]; old != nil {
		for k := range l.files {
			if strings.HasPrefix(k, old.vpath+"/") {
				delete(l.files, k)
				delete(l.tree, k)
			}
		}
	}
	for n, src := range srcs {
		k := p.vpath + "/" + n
		l.tree[k] = &fstest.MapFile{Mode: 0o444}
		l.files[k] = localFile{display: display(n), src: src}
	}
	l.byDir[dir] = p
	l.byPath[p.vpath] = p
	return p
}
