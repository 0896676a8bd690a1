package session

import (
	"context"
	"net/url"
	"testing"
	"time"
)

type urlView struct{ u *url.URL }

func (v urlView) MIMEBundle() (map[string]any, map[string]any) {
	return map[string]any{"text/html": "<a>" + v.u.Host + "</a>"}, nil
}

// Present gives compiled values without a MIMEBundle method a rich form,
// even when they have a String method, and leaves other values alone.
func TestPresent(t *testing.T) {
	s, err := New(Options{Prelude: []string{"fmt", "net/url"}, Present: func(v any) Renderer {
		if u, ok := v.(*url.URL); ok {
			return urlView{u}
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err := s.Execute(context.Background(), `u, _ := url.Parse("http://example.org/x"); u`, newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	if b == nil || b.Data["text/html"] != "<a>example.org</a>" || b.Data["text/plain"] == nil {
		t.Fatalf("bundle = %+v, want the presented HTML plus text", b)
	}
	if got := run(t, s, `[]int{1, 2}`); got != "[1 2]" {
		t.Fatalf("slice shown as %q", got)
	}
}

// Ctx is the running cell's context: an interrupt cancels it, so compiled
// code that watches it stops too.
func TestCtxCancelledByInterrupt(t *testing.T) {
	s := newSession(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	// exec.Cmd.Run is compiled code: only the context can stop it.
	_, err := s.Execute(ctx, `import "os/exec"
exec.CommandContext(Ctx(), "sleep", "20").Run()`, newRecorder())
	if err == nil {
		t.Fatal("interrupted cell succeeded")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Ctx() was not cancelled: the cell ran %v", d)
	}
	if got := run(t, s, `Ctx().Err() == nil`); got != "true" {
		t.Fatalf("Ctx() in a fresh cell: Err()==nil is %s", got)
	}
}

// yaegi 0.16 alone loses err in `v, err := f()` inside a block of top-level
// code; the session wraps top-level compound statements so cells work.
func TestNestedMultiValueDefine(t *testing.T) {
	s := newSession(t)
	run(t, s, `func pair(i int) (int, error) { return 2 * i, nil }`)
	cases := map[string]string{
		"a := 0\nfor i := 1; i <= 3; i++ {\n\tv, err := pair(i)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\ta += v\n}\na": "12",
		"b := 0\nif true {\n\tif v, err := pair(5); err == nil {\n\t\tb = v\n\t}\n}\nb":                                  "10",
		"c := 0\nswitch {\ncase true:\n\tv, err := pair(1)\n\t_ = err\n\tc = v\n}\nc":                                    "2",
		"d := 0\nfor _, i := range []int{1, 2} {\n\tif v, err := pair(i); err == nil {\n\t\td += v\n\t}\n}\nd":           "6",
	}
	for code, want := range cases {
		if got := run(t, s, code); got != want {
			t.Errorf("%q = %s, want %s", code, got, want)
		}
	}
}

// A global set by v, err := f() is read right from functions that other
// functions or closures call (yaegi 0.16 reads it through the caller's
// frame; markGlobals repairs that).
func TestGlobalFromMultiValueCall(t *testing.T) {
	s := newSession(t)
	run(t, s, "import \"net/url\"\nu, e := url.Parse(\"http://example.org\")")
	run(t, s, "func getU() *url.URL { return u }")
	run(t, s, "f := func() *url.URL { return getU() }")
	run(t, s, "func viaFunc() string { return getU().Path }")
	if got := run(t, s, `viaFunc()`); got != `""` {
		t.Fatalf("viaFunc() = %s", got)
	}
	if got := run(t, s, `f().Host + fmt.Sprint(e)`); got != `"example.org<nil>"` {
		t.Fatalf("got %s", got)
	}
}

// TestValueWithNilError checks that a call returning a value and a nil
// error shows the value as the cell shows it in a variable, as its last
// line and under %time: r.Path(0, 2) the path alone, a solver's result its
// presented matrix.
func TestValueWithNilError(t *testing.T) {
	s, err := New(kernelOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run(t, s, "g, _ := graph.GNM(4, 12, graph.WeightRange{Min: 1, Max: 5}, 1)\nr, _ := cpu.FloydWarshall(Ctx(), g, cpu.FWOptions{Pred: true})\np, _ := r.Path(0, 2)")
	if got, want := run(t, s, "r.Path(0, 2)"), run(t, s, "p"); got != want {
		t.Errorf("r.Path(0, 2) shows %q, want %q as p does", got, want)
	}
	want, err := s.Execute(context.Background(), "r", newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"cpu.FloydWarshall(Ctx(), g, cpu.FWOptions{Pred: true})", "%time cpu.FloydWarshall(Ctx(), g, cpu.FWOptions{Pred: true})"} {
		b, err := s.Execute(context.Background(), code, newRecorder())
		if err != nil {
			t.Fatal(err)
		}
		if b == nil || b.Data["text/html"] == nil || b.Data["text/html"] != want.Data["text/html"] || b.Data["text/plain"] != want.Data["text/plain"] {
			t.Errorf("%s shows %v, want the bundle of r: %v", code, b, want)
		}
	}
}
