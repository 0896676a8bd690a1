package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMagics checks each built-in magic.
func TestMagics(t *testing.T) {
	t.Setenv("PATHNOTES_TEST_VAR", "before")
	dir := t.TempDir()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })

	tests := []struct {
		name   string
		setup  string
		code   string
		result string // substring of the result text ("" for no result)
		stdout string // substring of stdout
		check  func(t *testing.T, s *Session, b *Bundle)
	}{
		{name: "help lists built-in magics", code: "%help", result: "%%time",
			check: func(t *testing.T, _ *Session, b *Bundle) {
				for _, m := range []string{"%time CODE", "%who", "%reset", "%env", "%cd", "%%html", "%%markdown", "%%svg", "%help"} {
					if !strings.Contains(text(b), m) {
						t.Errorf("%%help lacks %s", m)
					}
				}
			}},
		{name: "line time", code: "%time 6 * 7", result: "42", stdout: "Wall time: "},
		{name: "cell time", code: "%%time\nx := 2\nx * 21", result: "42", stdout: "Wall time: "},
		{name: "cell time keeps line numbers", code: "%%time\nok := 1\n_ = nope", check: func(t *testing.T, s *Session, _ *Bundle) {
			e := cellError(t, s, "%%time\nok := 1\n_ = nope")
			if !strings.Contains(e.Value, "line 3, ") {
				t.Errorf("error %q not on line 3", e.Value)
			}
		}},
		{name: "who", setup: "var g float64 = 1.5\nname := \"x\"\ntype T struct{}\nfunc f() {}", code: "%who",
			check: func(t *testing.T, _ *Session, b *Bundle) {
				got := text(b)
				for _, w := range []string{"g", "float64", "name", "string"} {
					if !strings.Contains(got, w) {
						t.Errorf("%%who = %q lacks %q", got, w)
					}
				}
				if strings.Contains(got, "_pn") || strings.Contains(got, "f ") {
					t.Errorf("%%who = %q lists internals or functions", got)
				}
			}},
		{name: "reset", setup: "gone := 1\nimport \"strings\"\ntype R struct{ A int }", code: "%reset",
			check: func(t *testing.T, s *Session, _ *Bundle) {
				if e := cellError(t, s, "gone"); !strings.Contains(e.Value, "undefined: gone") {
					t.Errorf("after %%reset: %v", e)
				}
				run(t, s, "type R struct{ B string }") // may be redefined now
				run(t, s, "import \"strings\"\n_ = strings.ToUpper")
				if got := run(t, s, "fmt.Sprint(1)"); got != `"1"` { // the prelude is back
					t.Errorf("prelude after %%reset: %q", got)
				}
			}},
		{name: "env get", code: "%env PATHNOTES_TEST_VAR", result: "before"},
		{name: "env set", code: "%env PATHNOTES_TEST_VAR=after", stdout: "env: PATHNOTES_TEST_VAR=after",
			check: func(t *testing.T, s *Session, _ *Bundle) {
				if got := run(t, s, "import \"os\"\nos.Getenv(\"PATHNOTES_TEST_VAR\")"); got != `"after"` {
					t.Errorf("os.Getenv after %%env: %q", got)
				}
			}},
		{name: "env list", code: "%env", result: "PATHNOTES_TEST_VAR="},
		{name: "cd", code: "%cd " + dir, check: func(t *testing.T, s *Session, b *Bundle) {
			got, _ := os.Getwd()
			if want, _ := filepath.EvalSymlinks(dir); got != want && got != dir {
				t.Errorf("working directory %q, want %q", got, dir)
			}
			if text(b) != got {
				t.Errorf("%%cd printed %q", text(b))
			}
		}},
		{name: "html", code: "%%html\n<b>bold</b>", check: mimeCheck("text/html", "<b>bold</b>")},
		{name: "markdown", code: "%%markdown\n# Title", check: mimeCheck("text/markdown", "# Title")},
		{name: "svg", code: "%%svg\n<svg></svg>", check: mimeCheck("image/svg+xml", "<svg></svg>")},
		{name: "line magics before code", code: "%env PATHNOTES_TEST_VAR=mixed\nimport \"os\"\nos.Getenv(\"PATHNOTES_TEST_VAR\")", result: `"mixed"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			if tt.setup != "" {
				run(t, s, tt.setup)
			}
			r := newRecorder()
			b, err := s.Execute(context.Background(), tt.code, r)
			if err != nil && tt.check == nil {
				t.Fatal(err)
			}
			if tt.result != "" && !strings.Contains(text(b), tt.result) {
				t.Errorf("result %q lacks %q", text(b), tt.result)
			}
			if tt.stdout != "" && !strings.Contains(r.stdout(), tt.stdout) {
				t.Errorf("stdout %q lacks %q", r.stdout(), tt.stdout)
			}
			if tt.check != nil {
				tt.check(t, s, b)
			}
		})
	}
}

func mimeCheck(mime, body string) func(*testing.T, *Session, *Bundle) {
	return func(t *testing.T, _ *Session, b *Bundle) {
		if b == nil || b.Data[mime] != body || text(b) == "" {
			t.Errorf("bundle %+v, want %s %q and a text/plain", b, mime, body)
		}
	}
}

// TestUnknownMagic checks the error of a magic nobody registered.
func TestUnknownMagic(t *testing.T) {
	s := newSession(t)
	if e := cellError(t, s, "%nosuch arg"); e.Name != "UsageError" || !strings.Contains(e.Value, "%nosuch") {
		t.Errorf("got %v", e)
	}
	if e := cellError(t, s, "%%nosuch\nbody"); e.Name != "UsageError" || !strings.Contains(e.Value, "cell magic") {
		t.Errorf("got %v", e)
	}
}

// TestRegisterMagic checks magics added by other packages (the GPU magics).
func TestRegisterMagic(t *testing.T) {
	s := newSession(t)
	gpu := Magic{Name: "gpu", Usage: "%gpu [driver]", Help: "pick the GPU driver",
		Run: func(_ context.Context, _ *Session, args, _ string, out Output) (*Bundle, error) {
			if args == "fail" {
				return nil, errors.New("no such driver")
			}
			out.Stream("stdout", "driver "+args+"\n")
			return TextBundle("ok"), nil
		}}
	if err := s.RegisterMagic(gpu); err != nil {
		t.Fatal(err)
	}
	cellMagic := Magic{Name: "gpu", Cell: true, Help: "run the cell on the GPU",
		Run: func(ctx context.Context, s *Session, args, body string, _ Output) (*Bundle, error) {
			return s.RunCode(ctx, body)
		}}
	if err := s.RegisterMagic(cellMagic); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Magic{gpu, {Name: "", Run: gpu.Run}, {Name: "two words", Run: gpu.Run}, {Name: "norun"}} {
		if err := s.RegisterMagic(bad); err == nil {
			t.Errorf("RegisterMagic(%q) succeeded", bad.Name)
		}
	}
	r := newRecorder()
	b, err := s.Execute(t.Context(), "%gpu emu", r)
	if err != nil || text(b) != "ok" || r.stdout() != "driver emu\n" {
		t.Errorf("%%gpu: %q %v stdout %q", text(b), err, r.stdout())
	}
	if got := run(t, s, "%%gpu\nv := 20\nv + 1"); got != "21" {
		t.Errorf("%%%%gpu: %q", got)
	}
	if e := cellError(t, s, "%gpu fail"); e.Name != "MagicError" || !strings.Contains(e.Value, "no such driver") {
		t.Errorf("failing magic: %v", e)
	}
	if help := run(t, s, "%help"); !strings.Contains(help, "%gpu [driver]") || !strings.Contains(help, "run the cell on the GPU") {
		t.Errorf("%%help lacks the registered magics: %q", help)
	}
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if got := run(t, s, "%gpu again"); got != "ok" {
		t.Errorf("after Reset: %q", got)
	}
}
