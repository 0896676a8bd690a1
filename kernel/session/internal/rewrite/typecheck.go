package rewrite

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"sync"
)

// typeCheck type-checks the parsed piece f as Go would see it in the
// session: with the declarations of earlier cells (from their source), the
// session's variables (from their values' types), the packages it imported
// (from their symbol tables) and the session's generic standard functions.
// Errors are ignored: the types it finds guide rewrites (range over an
// integer or a function, type arguments), and where it finds none the code
// is left to the interpreter, whose messages stand.
func (r *Rewriter) typeCheck(f *ast.File) (info *types.Info) {
	info = newInfo()
	defer func() {
		if recover() != nil { // a failure of the check itself: no types
			info = newInfo()
		}
	}()
	declared := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				declared[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					declared[sp.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						declared[n.Name] = true
					}
				}
			}
		}
	}
	var stub strings.Builder
	stub.WriteString("package main\n")
	for name, path := range r.env.Imports() {
		fmt.Fprintf(&stub, "import %s %q\n", name, path)
	}
	r.env.Decls(func(name string, d Decl) {
		if declared[name] {
			return
		}
		if d.Kind == "func" || d.Kind == "method" {
			stub.WriteString(d.Sig + "\n")
		} else {
			stub.WriteString(d.Full + "\n")
		}
	})
	// The checker needs the file of every position: a file set with the
	// cell's file at its place (without its lines), then the stubs.
	fset := token.NewFileSet()
	if tf := r.env.FileSet().File(f.Package); tf != nil {
		fset.AddFile(tf.Name(), tf.Base(), tf.Size())
	}
	stubFile, _ := parser.ParseFile(fset, "session", stub.String(), parser.SkipObjectResolution)
	if stubFile != nil {
		r.renameStdIn(stubFile) // earlier cells' source says iter.Seq; errors are the checker's to find
	}

	if r.types == nil {
		r.types = newReflectTypes()
	}
	rt := r.types
	pkg := types.NewPackage("main", "main")
	std := stdTypes()
	for _, name := range std.Scope().Names() {
		if !declared[name] {
			pkg.Scope().Insert(std.Scope().Lookup(name))
		}
	}
	for name, v := range r.env.Globals() {
		if _, isDecl := r.env.Decl(name); declared[name] || isDecl || strings.HasPrefix(name, "_pn") {
			continue
		}
		if obj := rt.object(pkg, name, v); obj != nil {
			if _, isVar := obj.(*types.Var); isVar {
				pkg.Scope().Insert(obj)
			}
		}
	}
	conf := types.Config{
		Importer: sessionImporter{r.env, rt},
		Error:    func(error) {},
	}
	// Imports are per file: the cell's file, checked as a copy (with the
	// same nodes) that also has the session's imports.
	cell := *f
	cell.Decls = nil
	if stubFile != nil {
		for _, d := range stubFile.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				cell.Decls = append(cell.Decls, g)
			}
		}
	}
	cell.Decls = append(cell.Decls, f.Decls...)
	files := []*ast.File{&cell}
	if stubFile != nil {
		files = append([]*ast.File{stubFile}, files...)
	}
	types.NewChecker(&conf, fset, pkg, info).Files(files)
	return info
}

// sessionImporter gives the type check the packages of the session's
// symbol tables.
type sessionImporter struct {
	env Env
	rt  *reflectTypes
}

// Import implements types.Importer.
func (im sessionImporter) Import(path string) (*types.Package, error) {
	if p, ok := im.rt.pkgs[path]; ok && p.Complete() {
		return p, nil
	}
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	name, syms, ok := im.env.Package(path)
	if !ok {
		return nil, fmt.Errorf("no package %q in this session", path)
	}
	pkg := im.rt.pkg(path, name)
	for name, v := range syms {
		if strings.HasPrefix(name, "_") || pkg.Scope().Lookup(name) != nil {
			continue
		}
		if obj := im.rt.object(pkg, name, v); obj != nil && obj.Pkg() == pkg {
			pkg.Scope().Insert(obj)
		}
	}
	pkg.MarkComplete()
	return pkg, nil
}

// stdTypes returns the type-checked session's generic standard functions:
// a package whose objects each type check puts in its main package.
var stdTypes = sync.OnceValue(func() *types.Package {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "std", "package main;"+stdSources, parser.SkipObjectResolution)
	if err != nil {
		panic("session: the source of slices, maps and cmp does not parse: " + err.Error())
	}
	conf := types.Config{Importer: emptyImporter{}, Error: func(error) {}}
	pkg, _ := conf.Check("main", fset, []*ast.File{f}, nil)
	return pkg
})

// emptyImporter gives empty packages: the standard functions' signatures
// do not depend on what they import.
type emptyImporter struct{}

// Import implements types.Importer.
func (emptyImporter) Import(path string) (*types.Package, error) {
	p := types.NewPackage(path, pkgName(path))
	p.MarkComplete()
	return p, nil
}

// newInfo returns an empty record of the types a check finds.
func newInfo() *types.Info {
	return &types.Info{
		Types:     map[ast.Expr]types.TypeAndValue{},
		Defs:      map[*ast.Ident]types.Object{},
		Uses:      map[*ast.Ident]types.Object{},
		Instances: map[*ast.Ident]types.Instance{},
	}
}
