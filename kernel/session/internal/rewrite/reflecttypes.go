package rewrite

import (
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"strings"
)

// reflectTypes turns the reflect types of bound packages and of session
// variables into go/types types, for the type check that guides the
// session's rewrites (see typecheck.go). Named types get their methods;
// types it cannot express become invalid, which the check tolerates.
type reflectTypes struct {
	pkgs  map[string]*types.Package
	named map[reflect.Type]types.Type
}

// newReflectTypes returns an empty conversion.
func newReflectTypes() *reflectTypes {
	return &reflectTypes{pkgs: map[string]*types.Package{}, named: map[reflect.Type]types.Type{}}
}

// pkg returns the package of path, named name, empty until filled.
func (r *reflectTypes) pkg(path, name string) *types.Package {
	p := r.pkgs[path]
	if p == nil {
		p = types.NewPackage(path, name)
		r.pkgs[path] = p
	}
	return p
}

// object returns the go/types object that the yaegi symbol v of package
// pkg stands for: a type (a nil pointer to it), a variable (addressable),
// a function, or a constant.
func (r *reflectTypes) object(pkg *types.Package, name string, v reflect.Value) types.Object {
	if !v.IsValid() || !v.CanInterface() {
		return nil
	}
	t := v.Type()
	if c, ok := v.Interface().(constant.Value); ok {
		var typ types.Type
		switch c.Kind() {
		case constant.Bool:
			typ = types.Typ[types.UntypedBool]
		case constant.String:
			typ = types.Typ[types.UntypedString]
		case constant.Int:
			typ = types.Typ[types.UntypedInt]
		case constant.Float:
			typ = types.Typ[types.UntypedFloat]
		default:
			return nil
		}
		return types.NewConst(token.NoPos, pkg, name, typ, c)
	}
	switch {
	case t.Kind() == reflect.Pointer && v.IsNil():
		if n, ok := r.typ(t.Elem()).(*types.Named); ok {
			return n.Obj()
		}
		return nil
	case t.Kind() == reflect.Func && !v.CanAddr():
		if sig, ok := r.typ(t).(*types.Signature); ok {
			return types.NewFunc(token.NoPos, pkg, name, sig)
		}
		return nil
	}
	return types.NewVar(token.NoPos, pkg, name, r.typ(t))
}

// typ converts t.
func (r *reflectTypes) typ(t reflect.Type) types.Type {
	if t.Name() != "" && t.PkgPath() != "" {
		return r.namedType(t)
	}
	return r.structure(t)
}

// structure converts t as if it had no name.
func (r *reflectTypes) structure(t reflect.Type) types.Type {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String,
		reflect.UnsafePointer:
		return types.Typ[basicKinds[t.Kind()]]
	case reflect.Pointer:
		return types.NewPointer(r.typ(t.Elem()))
	case reflect.Slice:
		return types.NewSlice(r.typ(t.Elem()))
	case reflect.Array:
		return types.NewArray(r.typ(t.Elem()), int64(t.Len()))
	case reflect.Map:
		return types.NewMap(r.typ(t.Key()), r.typ(t.Elem()))
	case reflect.Chan:
		dir := types.SendRecv
		switch t.ChanDir() {
		case reflect.SendDir:
			dir = types.SendOnly
		case reflect.RecvDir:
			dir = types.RecvOnly
		}
		return types.NewChan(dir, r.typ(t.Elem()))
	case reflect.Func:
		return r.signature(t, 0)
	case reflect.Struct:
		var fields []*types.Var
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			var pkg *types.Package
			if f.PkgPath != "" {
				pkg = r.pkg(f.PkgPath, pkgName(f.PkgPath))
			}
			fields = append(fields, types.NewField(token.NoPos, pkg, f.Name, r.typ(f.Type), f.Anonymous))
		}
		return types.NewStruct(fields, nil)
	case reflect.Interface:
		var methods []*types.Func
		for i := 0; i < t.NumMethod(); i++ {
			m := t.Method(i)
			methods = append(methods, types.NewFunc(token.NoPos, nil, m.Name, r.signature(m.Type, 0)))
		}
		return types.NewInterfaceType(methods, nil).Complete()
	}
	return types.Typ[types.Invalid]
}

// signature converts a function type, without its first skip parameters
// (1 for a method's receiver).
func (r *reflectTypes) signature(t reflect.Type, skip int) *types.Signature {
	var params, results []*types.Var
	for i := skip; i < t.NumIn(); i++ {
		params = append(params, types.NewParam(token.NoPos, nil, "", r.typ(t.In(i))))
	}
	for i := 0; i < t.NumOut(); i++ {
		results = append(results, types.NewParam(token.NoPos, nil, "", r.typ(t.Out(i))))
	}
	return types.NewSignatureType(nil, nil, nil, types.NewTuple(params...), types.NewTuple(results...), t.IsVariadic() && len(params) > 0)
}

// namedType converts a named type, with the methods of it and its pointer.
func (r *reflectTypes) namedType(t reflect.Type) types.Type {
	if n, ok := r.named[t]; ok {
		return n
	}
	pkg := r.pkg(t.PkgPath(), pkgName(t.PkgPath()))
	obj := types.NewTypeName(token.NoPos, pkg, t.Name(), nil)
	n := types.NewNamed(obj, nil, nil)
	r.named[t] = n
	n.SetUnderlying(r.structure(t).Underlying())
	if t.Kind() != reflect.Interface {
		pt := reflect.PointerTo(t)
		for i := 0; i < pt.NumMethod(); i++ {
			m := pt.Method(i)
			if m.PkgPath != "" {
				continue
			}
			var recv types.Type = n
			if _, ok := t.MethodByName(m.Name); !ok {
				recv = types.NewPointer(n)
			}
			sig := r.signature(m.Type, 1)
			sig = types.NewSignatureType(types.NewVar(token.NoPos, pkg, "", recv), nil, nil, sig.Params(), sig.Results(), sig.Variadic())
			n.AddMethod(types.NewFunc(token.NoPos, pkg, m.Name, sig))
		}
	}
	return n
}

// basicKinds maps reflect kinds to go/types basic kinds.
var basicKinds = map[reflect.Kind]types.BasicKind{
	reflect.Bool: types.Bool, reflect.Int: types.Int, reflect.Int8: types.Int8, reflect.Int16: types.Int16,
	reflect.Int32: types.Int32, reflect.Int64: types.Int64, reflect.Uint: types.Uint, reflect.Uint8: types.Uint8,
	reflect.Uint16: types.Uint16, reflect.Uint32: types.Uint32, reflect.Uint64: types.Uint64,
	reflect.Uintptr: types.Uintptr, reflect.Float32: types.Float32, reflect.Float64: types.Float64,
	reflect.Complex64: types.Complex64, reflect.Complex128: types.Complex128, reflect.String: types.String,
	reflect.UnsafePointer: types.UnsafePointer,
}

// pkgName guesses a package's name from its path: its last element.
func pkgName(path string) string {
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[i+1:]
	}
	return path
}
