package cells

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/gpu/ptxemu"
)

// TestCellRegistry loads cell modules on the default device (the
// emulator) and reaches their kernels and variables by name; a later
// module of the same name replaces the earlier one.
func TestCellRegistry(t *testing.T) {
	t.Setenv(gpu.EnvDriver, "emu")
	var s Session
	_, err := s.GetKernel("nothing")
	wantErr(t, "unknown kernel", err, `no cell kernel "nothing"`)
	m, err := s.Load("", cellTestPTX)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "params" { // the first kernel's name
		t.Errorf("default module name %q", m.Name())
	}
	if _, err := s.Load("mine", cellTestPTX); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("mine", cellTestPTX); err != nil {
		t.Fatal(err)
	}
	mods := s.modules()
	if len(mods) < 2 || mods[len(mods)-1].Name() != "mine" || mods[len(mods)-2].Name() != "params" {
		t.Errorf("modules: %v", mods)
	}
	d, _ := gpu.Default()
	a, _ := Float32s(d, []float32{1, 2})
	c, _ := NewBuffer(d, Float32, 2)
	if err := s.Launch("vecAdd", gpu.Dim(1), gpu.Dim(2), a, a, c, 2); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.ToFloat32s(); !slices.Equal(got, []float32{2, 4}) {
		t.Errorf("Launch by name: %v", got)
	}
	k, err := s.GetKernel("_Z6vecAddPKfS0_Pfi")
	if err != nil || k.Name() != "vecAdd" || k.PTXName() != "_Z6vecAddPKfS0_Pfi" {
		t.Errorf("GetKernel by PTX name: %v, %v", k, err)
	}
	v, err := s.GetVar("devData")
	if err != nil || v.Type() != Float32 {
		t.Errorf("GetVar: %v, %v", v, err)
	}
	_, err = s.GetKernel("nope")
	wantErr(t, "unknown kernel", err, "mine.vecAdd", "params.scale")
	if desc := s.Describe(); !strings.Contains(desc, "module mine on PTX emulator") || !strings.Contains(desc, "PTX, loaded") {
		t.Errorf("Describe: %q", desc)
	}
}

// TestPTXDecls reads kernel signatures and variables, and demangles names.
func TestPTXDecls(t *testing.T) {
	decls, err := ptxemu.ParseDecls("celltest", cellTestPTX)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range decls.Entries {
		names = append(names, demangle(e.Name))
	}
	if want := []string{"params", "vecAdd", "scale", "addDev", "oob", "blockSum", "dscale"}; !slices.Equal(names, want) {
		t.Errorf("kernels %v, want %v", names, want)
	}
	var types []string
	for _, p := range decls.Entries[0].Params {
		types = append(types, fmt.Sprintf("%s/%d", p.Type, p.Size))
	}
	if want := []string{"u64/8", "u32/4", "u32/4", "u64/8", "u64/8", "f32/4", "f64/8", "u64/8"}; !slices.Equal(types, want) {
		t.Errorf("params' parameters %v, want %v", types, want)
	}
	var vars []string
	for _, v := range decls.Vars {
		vars = append(vars, fmt.Sprintf("%s %s.%s[%d]", v.Space, v.Name, v.Type, v.Count))
	}
	if want := []string{"global devData.f32[1]", "const coef.b8[16]", "const offset.u32[1]"}; !slices.Equal(vars, want) {
		t.Errorf("variables %v, want %v", vars, want)
	}
	for in, want := range map[string]string{
		"_Z6vecAddPfS_S_i": "vecAdd", "_ZN2ns4scanEPi": "ns::scan", "plain": "plain", "_Z": "_Z", "_Z99x": "_Z99x",
	} {
		if got := demangle(in); got != want {
			t.Errorf("demangle(%q) = %q, want %q", in, got, want)
		}
	}
	_, err = ptxemu.ParseDecls("k", ".visible .entry k(\n.param .u32 a,\n")
	wantErr(t, "unclosed parameter list", err, "ptx module k: line 2", "expected .param")
	// Instructions the emulator does not run do not stop the declarations.
	decls, err = ptxemu.ParseDecls("new", ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p) {\n\tnewop.xyz %r1, %r2;\n\tret;\n}\n")
	if err != nil || len(decls.Entries) != 1 || len(decls.Entries[0].Params) != 1 || decls.Entries[0].Params[0].Type != "u64" {
		t.Errorf("declarations beside an unknown instruction: %+v, %v", decls, err)
	}
}
