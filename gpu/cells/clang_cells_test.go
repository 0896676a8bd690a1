package cells

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/gpu"
	"github.com/pathnotes/pathnotes/internal/testenv"
)

// The %%cuda cells of the notebooks, compiled by clang and by nvcc, run
// with the same arguments on one device: TestClangCellsMatchNVCC on the
// emulator, TestCardClangMatchesNVCC on a card.

// notebookCell is a %%cuda cell of a notebook.
type notebookCell struct {
	where  string // "05-apsp-lab.ipynb cell 7"
	module string // its --name
	source string // compiled as the magic compiles it
}

// notebookCUDACells parses every notebook and returns its %%cuda cells.
func notebookCUDACells(t testing.TB) []notebookCell {
	t.Helper()
	files, err := filepath.Glob("../../notebooks/*.ipynb")
	if err != nil || len(files) == 0 {
		t.Fatalf("no notebooks in ../../notebooks: %v", err)
	}
	var cells []notebookCell
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var nb struct {
			Cells []struct {
				Type   string          `json:"cell_type"`
				Source json.RawMessage `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(b, &nb); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for i, c := range nb.Cells {
			var text string
			var lines []string
			if json.Unmarshal(c.Source, &lines) == nil {
				text = strings.Join(lines, "")
			} else if err := json.Unmarshal(c.Source, &text); err != nil {
				t.Fatalf("%s cell %d: source: %v", file, i, err)
			}
			magic, body, _ := strings.Cut(text, "\n")
			if c.Type != "code" || !strings.HasPrefix(magic, "%%cuda") {
				continue
			}
			where := fmt.Sprintf("%s cell %d", filepath.Base(file), i)
			f := strings.Fields(magic)
			if len(f) != 3 || f[1] != "--name" {
				t.Fatalf("%s: %q: the test knows cells with --name NAME only", where, magic)
			}
			// As the magic compiles it: the magic's line blanked, numbered from "cell" line 1.
			cells = append(cells, notebookCell{where: where, module: f[2], source: "#line 1 \"cell\"\n\n" + body})
		}
	}
	if len(cells) == 0 {
		t.Fatal("the notebooks have no cuda cell magic")
	}
	return cells
}

// cellLaunch is how the test launches a notebook kernel: grid, block,
// dynamic shared bytes and arguments, one token each: "I" an int buffer
// with INF (INT_MAX) among small values, "G" an int buffer of values 0-4
// (offsets, indices, flags), "F" a float buffer, a number an int. Racy
// kernels (a data race the notebook shows on purpose) run one warp.
type cellLaunch struct {
	grid, block gpu.Dim3
	shared      int
	args        string
	racy        bool
}

// cellLaunches has an entry for every kernel of the notebooks' %%cuda
// cells, by "module/kernel"; a kernel without one fails the test.
var cellLaunches = map[string]cellLaunch{
	"musapch1/globalIds":          {grid: gpu.Dim(2, 2), block: gpu.Dim(4, 2, 2), args: "I"},
	"musapch1/index2D":            {grid: gpu.Dim(2, 2), block: gpu.Dim(8, 4), args: "I 10 7"},
	"musapch1/countThreads":       {grid: gpu.Dim(3), block: gpu.Dim(32), args: "I I 70"},
	"musapch1/vecAdd":             {grid: gpu.Dim(3), block: gpu.Dim(32), args: "F F F 70"},
	"musapch1/matAdd":             {grid: gpu.Dim(2, 2), block: gpu.Dim(8, 8), args: "F F F 12"},
	"musapmem/addTwo":             {grid: gpu.Dim(1), block: gpu.Dim(1)},
	"musapmem/cubic":              {grid: gpu.Dim(2), block: gpu.Dim(32), args: "F F 50"},
	"musapmem/blockSum8":          {grid: gpu.Dim(3), block: gpu.Dim(8), args: "I I I"},
	"musapmem/blockSum":           {grid: gpu.Dim(3), block: gpu.Dim(32), shared: 128, args: "I I 90"},
	"musapmem/busy":               {grid: gpu.Dim(2), block: gpu.Dim(32), args: "F 60 5"},
	"musaprace/relaxWrong":        {grid: gpu.Dim(1), block: gpu.Dim(32), args: "G G G I G G 30", racy: true},
	"musaprace/relaxAtomic":       {grid: gpu.Dim(2), block: gpu.Dim(32), args: "G G G I G G 60"},
	"bodrarace/relaxPlain":        {grid: gpu.Dim(1), block: gpu.Dim(32), args: "I I 32", racy: true},
	"bodrarace/relaxAtomic":       {grid: gpu.Dim(2), block: gpu.Dim(32), args: "I I 64"},
	"naive/fwNaive1D":             {grid: gpu.Dim(2), block: gpu.Dim(64), args: "I 10 3"},
	"naive/fwNaive2D":             {grid: gpu.Dim(2, 2), block: gpu.Dim(8, 8), args: "I 10 3"},
	"tiledglobal/globalPhase1":    {grid: gpu.Dim(1, 1), block: gpu.Dim(32, 32), args: "I 40 1"},
	"tiledglobal/globalPhase2":    {grid: gpu.Dim(2, 2), block: gpu.Dim(32, 32), args: "I 40 1"},
	"tiledglobal/globalPhase3":    {grid: gpu.Dim(2, 2), block: gpu.Dim(32, 32), args: "I 40 1"},
	"tiledshared/sharedB8Phase1":  {grid: gpu.Dim(1, 1), block: gpu.Dim(8, 8), args: "I 20 1"},
	"tiledshared/sharedB8Phase2":  {grid: gpu.Dim(3, 2), block: gpu.Dim(8, 8), args: "I 20 1"},
	"tiledshared/sharedB8Phase3":  {grid: gpu.Dim(3, 3), block: gpu.Dim(8, 8), args: "I 20 1"},
	"tiledshared/sharedB16Phase1": {grid: gpu.Dim(1, 1), block: gpu.Dim(16, 16), args: "I 20 0"},
	"tiledshared/sharedB16Phase2": {grid: gpu.Dim(2, 2), block: gpu.Dim(16, 16), args: "I 20 0"},
	"tiledshared/sharedB16Phase3": {grid: gpu.Dim(2, 2), block: gpu.Dim(16, 16), args: "I 20 0"},
	"tiledshared/sharedB32Phase1": {grid: gpu.Dim(1, 1), block: gpu.Dim(32, 32), args: "I 40 1"},
	"tiledshared/sharedB32Phase2": {grid: gpu.Dim(2, 2), block: gpu.Dim(32, 32), args: "I 40 1"},
	"tiledshared/sharedB32Phase3": {grid: gpu.Dim(2, 2), block: gpu.Dim(32, 32), args: "I 40 1"},
	"tiledshared/sharedPhase1":    {grid: gpu.Dim(1, 1), block: gpu.Dim(32, 32), args: "I 40 1"},
	"tiledshared/sharedPhase2":    {grid: gpu.Dim(2, 2), block: gpu.Dim(32, 32), args: "I 40 1"},
	"tiledshared/sharedPhase3":    {grid: gpu.Dim(2, 2), block: gpu.Dim(32, 32), args: "I 40 1"},
}

// cellBufferLen is the length of every buffer argument: more than any
// launch of cellLaunches reaches.
const cellBufferLen = 8192

// cellResult is what a launch left: every buffer argument and module
// variable, as int32 bits or float32 values.
type cellResult struct {
	ints   map[string][]int32
	floats map[string][]float32
}

// runCellKernel fills fresh buffers and m's variables (of the element
// types the source gives them), launches kernel name of m as l says and
// reads back what it wrote.
func runCellKernel(d *gpu.Device, m *Module, name string, l cellLaunch, types map[string]ElemType) (cellResult, error) {
	res := cellResult{ints: map[string][]int32{}, floats: map[string][]float32{}}
	k, err := m.Kernel(name)
	if err != nil {
		return res, err
	}
	for _, v := range m.Vars() {
		b, err := m.VarAs(v, types[v])
		if err != nil {
			return res, err
		}
		if b.Type() == Float32 {
			err = b.CopyFloat32s(floatPattern(b.Len()))
		} else if b.Type() == Int32 {
			err = b.CopyInt32s(intPattern(b.Len(), true))
		}
		if err != nil {
			return res, fmt.Errorf("variable %s: %w", v, err)
		}
	}
	var args []any
	var bufs []*Buffer
	for _, tok := range strings.Fields(l.args) {
		var b *Buffer
		switch tok {
		case "I", "G":
			b, err = Int32s(d, intPattern(cellBufferLen, tok == "I"))
		case "F":
			b, err = Float32s(d, floatPattern(cellBufferLen))
		default:
			n, perr := strconv.Atoi(tok)
			if perr != nil {
				return res, fmt.Errorf("launch argument %q", tok)
			}
			args = append(args, n)
			continue
		}
		if err != nil {
			return res, err
		}
		defer b.Free()
		args, bufs = append(args, b), append(bufs, b)
	}
	if err := k.LaunchShared(l.grid, l.block, l.shared, args...); err != nil {
		return res, err
	}
	read := func(key string, b *Buffer) error {
		if b.Type() == Float32 {
			v, err := b.ToFloat32s()
			res.floats[key] = v
			return err
		}
		v, err := b.ToInt32s()
		res.ints[key] = v
		return err
	}
	for i, b := range bufs {
		if err := read(fmt.Sprintf("argument %d", i), b); err != nil {
			return res, err
		}
	}
	for _, v := range m.Vars() {
		b, err := m.VarAs(v, types[v])
		if err == nil {
			err = read("variable "+v, b)
		}
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// intPattern is n small ints (0-22 with INF every 11th when inf, else
// 0-4).
func intPattern(n int, inf bool) []int32 {
	v := make([]int32, n)
	for i := range v {
		switch {
		case !inf:
			v[i] = int32((i*7 + 3) % 5)
		case i%11 == 5:
			v[i] = math.MaxInt32
		default:
			v[i] = int32((i*7919 + 13) % 23)
		}
	}
	return v
}

// floatPattern is n floats between -1 and 3.
func floatPattern(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i%17)*0.25 - 1
	}
	return v
}

// diffResults describes how two results differ ("" when they do not):
// ints exactly, floats within a relative 1e-6 (the compilers may fuse
// different multiply-adds).
func diffResults(nvcc, clang cellResult) string {
	for key, a := range nvcc.ints {
		b := clang.ints[key]
		for i := range a {
			if i >= len(b) || a[i] != b[i] {
				return fmt.Sprintf("%s[%d]: nvcc %d, clang %v", key, i, a[i], at(b, i))
			}
		}
	}
	for key, a := range nvcc.floats {
		b := clang.floats[key]
		for i := range a {
			if i >= len(b) || !closeFloat(a[i], b[i]) {
				return fmt.Sprintf("%s[%d]: nvcc %v, clang %v", key, i, a[i], at(b, i))
			}
		}
	}
	if len(nvcc.ints) != len(clang.ints) || len(nvcc.floats) != len(clang.floats) {
		return fmt.Sprintf("nvcc gave %d int and %d float results, clang %d and %d", len(nvcc.ints), len(nvcc.floats), len(clang.ints), len(clang.floats))
	}
	return ""
}

// at is s[i], or "nothing" past its end.
func at[T any](s []T, i int) any {
	if i < len(s) {
		return s[i]
	}
	return "nothing"
}

// closeFloat reports whether a and b agree within a relative 1e-6 (NaNs
// agree with NaNs).
func closeFloat(a, b float32) bool {
	if a == b || a != a && b != b {
		return true
	}
	return math.Abs(float64(a)-float64(b)) <= 1e-6*math.Max(math.Abs(float64(a)), math.Abs(float64(b)))
}

// nvidiaPTX compiles source with NVIDIA's compiler: NVRTC where this
// build has it and it compiles the source, else nvcc (testenv.NeedNVCC's
// rule when it is not here).
func nvidiaPTX(t *testing.T, name, source string) string {
	t.Helper()
	if why := nvrtcAvailable(); why == "" {
		ptx, err := CompileCUDA(context.Background(), name, source, CompileOptions{Compiler: "nvrtc"})
		if err == nil {
			return ptx
		}
		t.Logf("NVRTC: %v; trying nvcc", err) // NVRTC has no host headers (<limits.h>)
	}
	testenv.NeedNVCC(t)
	ptx, err := CompileCUDA(context.Background(), name, source, CompileOptions{Compiler: "nvcc"})
	if err != nil {
		t.Fatal(err)
	}
	return ptx
}

// nvrtcAvailable returns "" when this build can compile with NVRTC, else
// why not.
func nvrtcAvailable() string {
	for _, line := range Compilers() {
		if strings.HasPrefix(line, "NVRTC") {
			if strings.HasSuffix(line, ": compiles") {
				return ""
			}
			return line
		}
	}
	return "NVRTC is not listed"
}

// compareClangNVCC compiles every notebook %%cuda cell with NVIDIA's
// compiler and with clang, loads both PTX on d, runs each kernel of the
// cell as cellLaunches says on both, and fails where the results differ.
// On a card (card true) a racy kernel is compared only when two runs of
// NVIDIA's PTX agree.
func compareClangNVCC(t *testing.T, d *gpu.Device, card bool) {
	testenv.NeedClang(t)
	t.Setenv(EnvPTXCache, "off")
	kernels := 0
	for _, cell := range notebookCUDACells(t) {
		nvPTX := nvidiaPTX(t, cell.module, cell.source)
		clPTX, err := CompileCUDA(context.Background(), cell.module, cell.source, CompileOptions{Compiler: "clang"})
		if err != nil {
			t.Fatalf("%s: %v", cell.where, err)
		}
		nv, err := LoadPTX(d, cell.module+"-nvidia", nvPTX)
		if err != nil {
			t.Fatalf("%s: NVIDIA's PTX: %v", cell.where, err)
		}
		cl, err := LoadPTX(d, cell.module+"-clang", clPTX)
		if err != nil {
			t.Fatalf("%s: clang's PTX: %v", cell.where, err)
		}
		if a, b := nv.Kernels(), cl.Kernels(); !slices.Equal(a, b) {
			t.Fatalf("%s: kernels: NVIDIA %v, clang %v", cell.where, a, b)
		}
		types := sourceVarTypes(cell.source)
		for _, name := range nv.Kernels() {
			key := cell.module + "/" + name
			l, ok := cellLaunches[key]
			if !ok {
				t.Errorf("%s: kernel %s has no entry in cellLaunches: add how to launch it", cell.where, key)
				continue
			}
			want, err := runCellKernel(d, nv, name, l, types)
			if err != nil {
				t.Errorf("%s: %s with NVIDIA's PTX: %v", cell.where, key, err)
				continue
			}
			if card && l.racy {
				if again, err := runCellKernel(d, nv, name, l, types); err != nil || diffResults(want, again) != "" {
					t.Logf("%s: %s: two runs of NVIDIA's PTX differ on this card (a race), not compared", cell.where, key)
					continue
				}
			}
			got, err := runCellKernel(d, cl, name, l, types)
			if err != nil {
				t.Errorf("%s: %s with clang's PTX: %v", cell.where, key, err)
				continue
			}
			if diff := diffResults(want, got); diff != "" {
				t.Errorf("%s: %s: %s", cell.where, key, diff)
			} else {
				kernels++
			}
		}
	}
	t.Logf("%d kernels gave the same results with clang's PTX as with NVIDIA's", kernels)
}
