package rewrite

import (
	"go/ast"
	"go/token"
	"reflect"
)

// yaegi 0.16.1 orders the var declarations of a compiled file by the
// variables their initializers name, and counts among them the variables
// of earlier cells, which it never initializes in this file: var b = a + 1,
// with a from an earlier cell, fails with "variable definition loop".
//
// So such var declarations run after the file, as top-level statements (a
// var statement in top-level code declares a session variable too): a spec
// whose initializer names a variable of an earlier cell, or a variable of
// such a spec, is late. The functions and methods of the piece that name a
// late variable, or such a function, are compiled after the late specs
// have run, in a file of their own. A late initializer that calls one of
// those is left as it was (its order cannot be kept), and so are specs that
// declare a variable that exists already (the session takes the
// declarations of those out before this stage: it assigns them).

// lateDecls is a piece's declarations cut in the order they are compiled:
// first, the late var specs, then the declarations that name them.
type lateDecls struct {
	first []ast.Decl
	late  []*ast.GenDecl // one var spec each, in the order they must run
	then  []ast.Decl
}

// splitLate is the late-vars pass: it leaves in the piece's file the
// declarations to compile first, and puts the late var declarations in
// Late and those that name them in Then.
func splitLate(p *Piece) error {
	if cut := cutLate(p.File.Decls, p.r.env.Globals()); cut != nil {
		p.File.Decls, p.Late, p.Then = cut.first, cut.late, cut.then
	}
	return nil
}

// cutLate cuts decls (a piece's declarations, without the var
// declarations of existing variables) for globals, the session's variables
// and constants before the piece. It returns nil when nothing is late or
// when the order cannot be kept.
func cutLate(decls []ast.Decl, globals map[string]reflect.Value) *lateDecls {
	declared := map[string]bool{}
	for _, d := range decls {
		for _, name := range declNames(d) {
			declared[name] = true
		}
	}
	earlier := map[string]bool{}
	for name, v := range globals {
		if v.CanSet() && !declared[name] {
			earlier[name] = true
		}
	}
	if len(earlier) == 0 {
		return nil
	}

	// The late specs: a fixed point, since a spec may name a late variable
	// declared after it.
	specs := map[*ast.ValueSpec]bool{}
	lateNames := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, d := range decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				if specs[vs] || len(vs.Values) == 0 || !namesAny(vs.Values, earlier, lateNames) || anyIn(vs.Names, globals) {
					continue
				}
				specs[vs] = true
				for _, n := range vs.Names {
					lateNames[n.Name] = true
				}
				changed = true
			}
		}
	}
	if len(specs) == 0 {
		return nil
	}

	// The functions and methods that name late variables, or such functions.
	then := map[ast.Decl]bool{}
	thenNames := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, d := range decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || then[d] || fd.Body == nil || !namesIn(fd.Body, lateNames, thenNames) {
				continue
			}
			then[d] = true
			if fd.Recv == nil {
				thenNames[fd.Name.Name] = true
			}
			changed = true
		}
	}

	out := &lateDecls{}
	var late []*ast.ValueSpec
	for _, d := range decls {
		g, ok := d.(*ast.GenDecl)
		switch {
		case then[d]:
			out.then = append(out.then, d)
		case ok && g.Tok == token.VAR:
			var keep []ast.Spec
			for _, sp := range g.Specs {
				if vs := sp.(*ast.ValueSpec); specs[vs] {
					if namesAny(vs.Values, thenNames, nil) {
						return nil
					}
					if vs.Doc == nil {
						vs.Doc = g.Doc // for inspection (noteDecls)
					}
					late = append(late, vs)
				} else {
					keep = append(keep, sp)
				}
			}
			if len(keep) > 0 {
				g.Specs = keep
				out.first = append(out.first, g)
			}
		default:
			out.first = append(out.first, d)
		}
	}
	if out.late = orderSpecs(late); out.late == nil {
		return nil
	}
	return out
}

// orderSpecs returns var declarations of specs, each after those whose
// variables its initializer names (in the order of the cell otherwise), or
// nil when they name each other in a cycle.
func orderSpecs(specs []*ast.ValueSpec) []*ast.GenDecl {
	declaredBy := map[string]*ast.ValueSpec{}
	for _, vs := range specs {
		for _, n := range vs.Names {
			declaredBy[n.Name] = vs
		}
	}
	const (
		visiting = 1
		done     = 2
	)
	state := map[*ast.ValueSpec]int{}
	var out []*ast.GenDecl
	var visit func(vs *ast.ValueSpec) bool
	visit = func(vs *ast.ValueSpec) bool {
		switch state[vs] {
		case visiting:
			return false
		case done:
			return true
		}
		state[vs] = visiting
		ok := true
		for _, v := range vs.Values {
			ast.Inspect(v, func(n ast.Node) bool {
				if id, isIdent := n.(*ast.Ident); isIdent && ok {
					if dep := declaredBy[id.Name]; dep != nil && dep != vs {
						ok = visit(dep)
					}
				}
				return ok
			})
		}
		state[vs] = done
		out = append(out, &ast.GenDecl{TokPos: vs.Pos(), Tok: token.VAR, Specs: []ast.Spec{vs}})
		return ok
	}
	for _, vs := range specs {
		if !visit(vs) {
			return nil
		}
	}
	return out
}

// declNames returns the top-level names d declares (methods declare none).
func declNames(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			names = append(names, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, sp := range d.Specs {
			switch sp := sp.(type) {
			case *ast.TypeSpec:
				names = append(names, sp.Name.Name)
			case *ast.ValueSpec:
				for _, n := range sp.Names {
					names = append(names, n.Name)
				}
			}
		}
	}
	return names
}

// namesAny reports whether exprs hold an identifier of a or b.
func namesAny(exprs []ast.Expr, a, b map[string]bool) bool {
	for _, e := range exprs {
		if namesIn(e, a, b) {
			return true
		}
	}
	return false
}

// namesIn reports whether n holds an identifier of a or b (a name in a
// nested scope counts too: the cut is then only more cautious).
func namesIn(n ast.Node, a, b map[string]bool) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if id, ok := x.(*ast.Ident); ok && (a[id.Name] || b[id.Name]) {
			found = true
		}
		return !found
	})
	return found
}

// anyIn reports whether one of names is a key of m.
func anyIn(names []*ast.Ident, m map[string]reflect.Value) bool {
	for _, n := range names {
		if _, ok := m[n.Name]; ok {
			return true
		}
	}
	return false
}
