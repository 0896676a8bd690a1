package session

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"os"
	"regexp"
	"sort"
	"strings"
)

// importLocal imports the local package of a cell's import spec: a
// directory relative to the working directory ("./mylib") or a package of
// the module whose go.mod is at the working directory or above. It reports
// false, and does nothing, when the path is not a local one. Importing a
// package again loads it anew when its files, or those of a local package
// it imports, changed since; otherwise it does nothing.
func (s *Session) importLocal(ctx context.Context, is *ast.ImportSpec) (bool, error) {
	p := importPath(is)
	if s.knownPkg(p) {
		return false, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return false, nil
	}
	dir, where, ok := localDir(p, wd)
	if !ok {
		return false, nil
	}
	at := s.in.FileSet().Position(is.Pos()).String()
	ld := s.newLocalLoad(wd)
	pkg, err := ld.load(dir, where)
	if err != nil {
		return true, s.localError(p, at, err)
	}
	name := pkg.name
	if is.Name != nil {
		name = is.Name.Name
	}
	if name == "." {
		return true, &CellError{Name: "CompileError", Value: fmt.Sprintf(
			"%s: import . %q: a local package cannot be imported with a dot; name it or leave the name out", at, p)}
	}
	return true, s.bindLocal(ctx, ld, name, pkg, p, at)
}

// knownPkg reports whether p is a package bound into the interpreter.
func (s *Session) knownPkg(p string) bool {
	return s.pkgs[p] != nil || p == runtimePath
}

// newLocalLoad starts loading local packages for one import.
func (s *Session) newLocalLoad(wd string) *localLoad {
	return &localLoad{l: s.local, wd: wd, known: s.knownPkg, done: map[string]*localPkg{}}
}

// bindLocal makes pkg the package of name in the session, replacing a
// version of a local package that had the name. p is the import path the
// user wrote and at where, for messages.
func (s *Session) bindLocal(ctx context.Context, ld *localLoad, name string, pkg *localPkg, p, at string) error {
	s.mu.Lock()
	prev, taken := s.imports[name]
	s.mu.Unlock()
	if taken && prev == pkg.vpath {
		return nil
	}
	if taken && s.local.get(prev) == nil {
		return &CellError{Name: "CompileError", Value: fmt.Sprintf(
			"%s: import %q: the name %s is taken by the import of %q in this session; name the import (import x %q) or use %%reset",
			at, p, name, prev, p)}
	}
	restore := func() {}
	if taken && name != "_" {
		restore = forgetImport(s.in, name+"/"+cellName)
	}
	f, err := s.parseFile(fmt.Sprintf("import %s %q", name, pkg.vpath))
	if err == nil {
		err = initPanic(s.compileRun(ctx, f), s.takeTrace())
	}
	if err != nil {
		restore()
		// yaegi will not read a package again under a path that failed:
		// the next import makes new versions.
		for _, made := range ld.made {
			s.local.forget(made)
		}
		return s.localError(p, at, err)
	}
	if name != "_" {
		s.mu.Lock()
		s.imports[name] = pkg.vpath
		s.mu.Unlock()
	}
	return nil
}

// initPanic turns the error of an import whose package initialization
// panicked (yaegi runs it while compiling the import, so that the session
// takes it for a failure of the interpreter) into a panic with the frames
// of the trace. Other errors pass.
func initPanic(err error, trace []string) error {
	var ce *CellError
	if len(trace) == 0 || !errors.As(err, &ce) || ce.Name != "InterpreterError" {
		return err
	}
	_, value, _ := strings.Cut(ce.Value, "does not support: ")
	e := &CellError{Name: "panic", Value: "panic while initializing the package: " + value}
	e.Traceback = append([]string{e.Name + ": " + e.Value}, trace...)
	return e
}

// yaegiImportError matches yaegi's words around the error of an import
// of a version of a local package.
var yaegiImportError = regexp.MustCompile(`import "(` + localPrefix + `/[^"]*)" error: `)

// localError makes the error of a failed import of a local package: the
// message of the package's file (file:line:col first) and the cell's
// import.
func (s *Session) localError(p, at string, err error) *CellError {
	name, msg := "ImportError", err.Error()
	var ce *CellError
	if errors.As(err, &ce) {
		name, msg = ce.Name, ce.Value
		// yaegi's "cell:1:8: import "local/x" error: x/a.go:3:4: import
		// "local/y" error: y/b.go:5:6: ...": the cell's position goes, the
		// imports between packages name their directories.
		if loc := yaegiImportError.FindStringIndex(msg); loc != nil {
			msg = msg[loc[1]:]
		}
		msg = yaegiImportError.ReplaceAllStringFunc(msg, func(m string) string {
			if v := s.local.get(yaegiImportError.FindStringSubmatch(m)[1]); v != nil {
				return "import of " + v.shown + ": "
			}
			return m
		})
	}
	e := &CellError{Name: name, Value: fmt.Sprintf("%s (import of the local package %q at %s)", msg, p, at)}
	if ce != nil && len(ce.Traceback) > 1 {
		e.Traceback = append([]string{e.Name + ": " + e.Value}, ce.Traceback[1:]...)
	}
	return e
}

// magicReload is %reload [NAME...]: it imports again the local packages
// the session imported (those named, or all) whose files changed.
func magicReload(ctx context.Context, s *Session, args, _ string, _ Output) (*Bundle, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	local := map[string]*localPkg{}
	for name, p := range s.imports {
		if pkg := s.local.get(p); pkg != nil {
			local[name] = pkg
		}
	}
	s.mu.Unlock()
	names := strings.Fields(args)
	if len(names) == 0 {
		for name := range local {
			names = append(names, name)
		}
		if len(names) == 0 {
			return TextBundle("no local packages imported"), nil
		}
	}
	sort.Strings(names)
	ld := s.newLocalLoad(wd)
	var report []string
	for _, name := range names {
		old := local[name]
		if old == nil {
			return nil, fmt.Errorf("%s is not the name of a local package imported in this session", name)
		}
		at := "%reload"
		pkg, err := ld.load(old.dir, "where it was imported from")
		if err != nil {
			return nil, s.localError(old.dir, at, err)
		}
		if err := s.bindLocal(ctx, ld, name, pkg, old.dir, at); err != nil {
			return nil, err
		}
		if pkg == old {
			report = append(report, fmt.Sprintf("%s: unchanged", name))
		} else {
			report = append(report, fmt.Sprintf("%s: reloaded from %s", name, pkg.shown))
		}
	}
	return TextBundle(strings.Join(report, "\n")), nil
}

// sourceDocs returns the doc comments of a package from its sources: those
// of a local package's version, or of the standard library.
func (s *Session) sourceDocs(importPath string) *pkgDocs {
	if p := s.local.get(importPath); p != nil {
		return p.docs
	}
	return goDocs(importPath)
}

// memberNames are the exported names of a local package, for completion.
func (p *localPkg) memberNames() []string {
	if p.docs == nil {
		return nil
	}
	var names []string
	for n := range p.docs.names {
		if !strings.Contains(n, ".") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
