package session

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// TestYaegiPatches pins the yaegi version the patches of yaegipatch.go were
// checked against, and fails, naming the field, when one they rely on has
// moved or changed kind.
func TestYaegiPatches(t *testing.T) {
	version := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/traefik/yaegi" {
				version = d.Version
			}
		}
	}
	if version == "" {
		mod, err := os.ReadFile("../../go.mod")
		if err != nil {
			t.Fatalf("no build information and no go.mod: %v", err)
		}
		m := regexp.MustCompile(`github\.com/traefik/yaegi (v\S+)`).FindSubmatch(mod)
		if m == nil {
			t.Fatal("go.mod does not require github.com/traefik/yaegi")
		}
		version = string(m[1])
	}
	if version != yaegiVersion {
		t.Fatalf("yaegi is %s, but the patches of yaegipatch.go were checked against %s: review each of them, then update yaegiVersion", version, yaegiVersion)
	}
	types := yaegiTypes()
	for _, f := range yaegiFields {
		if _, err := checkFields(types, []yaegiField{f}); err != nil {
			t.Errorf("%v", err)
		}
	}
	y := checkYaegi()
	if y.err != nil {
		t.Fatalf("the yaegi patches are off: %v", y.err)
	}
	if y.varSym == 0 {
		t.Errorf("varSym is 0, yaegi's undefined symbol kind")
	}
}

// TestCheckFieldsNamesWhatMoved checks that the layout check reports a
// missing field and a field of another kind by name.
func TestCheckFieldsNamesWhatMoved(t *testing.T) {
	types := yaegiTypes()
	for _, tt := range []struct {
		f    yaegiField
		want string
	}{
		{yaegiField{"frame", "nosuch", reflect.Slice}, "interp.frame has no field nosuch"},
		{yaegiField{"symbol", "global", reflect.Int}, "interp.symbol.global is a bool, want a int"},
		{yaegiField{"nosuchtype", "x", reflect.Int}, "type interp.nosuchtype not found"},
	} {
		_, err := checkFields(types, []yaegiField{tt.f})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("checkFields(%v) = %v, want an error with %q", tt.f, err, tt.want)
		}
	}
}

// TestMarkGlobalsRepairs checks the repair markGlobals makes: a variable
// defined by a multi-value := at the top level, read from a closure called
// by a function.
func TestMarkGlobalsRepairs(t *testing.T) {
	s := newSession(t)
	run(t, s, "func two() (int, string) { return 41, \"x\" }\nu, w := two()")
	run(t, s, "func get() int { return u + 1 }\nfunc outer() int { x := 7; _ = x; return get() }")
	if got := run(t, s, "outer()"); got != "42" {
		t.Errorf("outer() = %s, want 42", got)
	}
	if got := run(t, s, "func() int { y := 3; _ = y; return get() }()"); got != "42" {
		t.Errorf("get() from a literal = %s, want 42", got)
	}
}

// TestFrameGrowth checks what the global frame costs a cell: an assignment
// to a session variable adds no slot, and cells that do add slots make the
// frame's storage grow by doubling (growFrame), not once per cell.
func TestFrameGrowth(t *testing.T) {
	s := newSession(t)
	run(t, s, "x := 0")
	n0 := len(frameData(s.in))
	for range 10 {
		run(t, s, "x = 1")
	}
	if n := len(frameData(s.in)); n != n0 {
		t.Errorf("10 cells x = 1 took the frame from %d to %d slots, want no new slot", n0, n)
	}
	arrays := map[*reflect.Value]bool{}
	for i := range 300 {
		run(t, s, fmt.Sprintf("v%d := %d\nx = v%d", i, i, i))
		arrays[&frameData(s.in)[0]] = true
	}
	if n := len(frameData(s.in)); n < n0+300 {
		t.Fatalf("300 new variables took the frame from %d to %d slots", n0, n)
	}
	if len(arrays) > 12 {
		t.Errorf("the frame's storage was made anew %d times in 300 cells, want a doubling", len(arrays))
	}
	if got := run(t, s, "v0 + v150 + v299 + x"); got != "748" {
		t.Errorf("v0 + v150 + v299 + x = %s, want 748", got)
	}
}
