package session

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"maps"
	"strings"

	"github.com/pathnotes/pathnotes/kernel/session/internal/rewrite"
)

// runImports imports the packages of a cell that the session has not
// imported yet under the same name. A standard package that only the
// session implements (iter, which yaegi 0.16.1 lacks; see package rewrite)
// is not imported into the interpreter: its name is noted, and the uses
// of its names are renamed.
func (s *Session) runImports(ctx context.Context, code string, p piece) error {
	f, err := s.parseFile(span(code, p))
	if err != nil {
		return err
	}
	var keep []ast.Spec
	own := map[string]string{} // name → path of the session's own packages imported
	for _, d := range f.Decls {
		for _, spec := range d.(*ast.GenDecl).Specs {
			is := spec.(*ast.ImportSpec)
			if local, err := s.importLocal(ctx, is); local || err != nil {
				if err != nil {
					return err
				}
				continue
			}
			name, err := s.importName(is)
			if err != nil {
				return err
			}
			if prev, ok := s.imports[name]; ok {
				if prev == importPath(is) {
					continue // imported before: a second import would be an error
				}
				pos := s.in.FileSet().Position(is.Pos())
				return &CellError{Name: "CompileError", Value: fmt.Sprintf(
					"%s: import %q: the name %s is taken by the import of %q in this session; name the import (import x %q) or use %%reset",
					pos, importPath(is), name, prev, importPath(is))}
			}
			if path := importPath(is); rewrite.StdPackage(path) && s.pkgs[path] == nil {
				own[name] = path
				continue
			}
			keep = append(keep, spec)
		}
	}
	if len(keep) == 0 {
		s.mu.Lock()
		maps.Copy(s.imports, own)
		s.mu.Unlock()
		return nil
	}
	f.Decls = []ast.Decl{&ast.GenDecl{TokPos: f.Package, Tok: token.IMPORT, Lparen: f.Package, Specs: keep, Rparen: f.Package}}
	f.Imports = nil
	for _, spec := range keep {
		f.Imports = append(f.Imports, spec.(*ast.ImportSpec))
	}
	if err := s.compileRun(ctx, f); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	maps.Copy(s.imports, own)
	for _, spec := range keep {
		is := spec.(*ast.ImportSpec)
		name, _ := s.importName(is)
		s.imports[name] = importPath(is)
	}
	return nil
}

func importPath(is *ast.ImportSpec) string {
	p := strings.Trim(is.Path.Value, "`\"")
	return p
}

// importName returns the name under which an import spec makes its package
// visible: the explicit name, or the package's name from the symbol tables.
func (s *Session) importName(is *ast.ImportSpec) (string, error) {
	if is.Name != nil {
		return is.Name.Name, nil
	}
	p := importPath(is)
	if info, ok := s.pkgs[p]; ok {
		return info.name, nil
	}
	if p == runtimePath {
		return "session", nil
	}
	if rewrite.StdPackage(p) {
		return p, nil
	}
	pos := s.in.FileSet().Position(is.Pos())
	return "", &CellError{Name: "CompileError", Value: fmt.Sprintf(
		"%s: import %q: no such package in this kernel (the interpreter knows the standard library, the packages bound into pathnotes, and local packages: import \"./dir\")", pos, p)}
}
