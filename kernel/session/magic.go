package session

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// runCell runs the magics at the start of a cell, then its Go code. A cell
// magic (%%name on the first line that is not blank) takes the whole rest of
// the cell. Line magics (%name) are the lines at the start of the cell; the
// Go code after them keeps its line numbers in error messages, and its lines
// that start with ! are shell commands (see runMixed).
func (s *Session) runCell(ctx context.Context, code string, out Output) (*Bundle, error) {
	if name, detail, ok := helpQuery(code); ok {
		if b, found := s.Inspect(name, utf8.RuneCountInString(name), detail); found {
			return b, nil
		}
		return nil, &CellError{Name: "NameError", Value: fmt.Sprintf("no documentation for %s: it names nothing this session knows", name)}
	}
	lines := strings.SplitAfter(code, "\n")
	var result *Bundle
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if !strings.HasPrefix(t, "%") {
			rest := strings.Repeat("\n", i) + strings.Join(lines[i:], "")
			return s.runMixed(ctx, rest, out)
		}
		cell := strings.HasPrefix(t, "%%")
		name, args, _ := strings.Cut(strings.TrimLeft(t, "%"), " ")
		m, ok := s.magic(name, cell)
		if !ok {
			kind := "line"
			if cell {
				kind = "cell"
			}
			return nil, &CellError{Name: "UsageError", Value: fmt.Sprintf(
				"line %d: unknown %s magic %s; %%help lists the magics", i+1, kind, strings.Fields(t)[0])}
		}
		body := ""
		if cell {
			// Blank lines in front keep the body's line numbers those of the cell.
			body = strings.Repeat("\n", i+1) + strings.Join(lines[i+1:], "")
		}
		b, err := s.runMagic(ctx, m, strings.TrimSpace(args), body, out)
		if err != nil {
			return nil, err
		}
		if cell {
			return b, nil
		}
		result = b
	}
	return result, nil
}

// runMagic runs m, turning a plain error into a CellError and a panic of a
// registered magic into one too.
func (s *Session) runMagic(ctx context.Context, m Magic, args, body string, out Output) (b *Bundle, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, &CellError{Name: "MagicError", Value: fmt.Sprintf("magic %s panicked: %v", magicKey{m.Name, m.Cell}, r)}
		}
	}()
	b, err = m.Run(ctx, s, args, body, out)
	if err != nil {
		if _, ok := err.(*CellError); !ok {
			err = &CellError{Name: "MagicError", Value: fmt.Sprintf("%s: %v", magicKey{m.Name, m.Cell}, err)}
		}
	}
	return b, err
}

func (s *Session) magic(name string, cell bool) (Magic, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.magics[magicKey{name, cell}]
	return m, ok
}

// RunCode runs Go code in the session, for magics that wrap code (as %time
// does). Code is a cell without magics; its trailing expression's bundle is
// returned. It must be called from a magic's Run, while the cell runs.
func (s *Session) RunCode(ctx context.Context, code string) (*Bundle, error) {
	return s.runCode(ctx, code)
}

// registerBuiltinMagics adds the magics every session has.
func (s *Session) registerBuiltinMagics() {
	for _, m := range append([]Magic{
		{Name: "help", Usage: "%help", Help: "list the magics", Run: magicHelp},
		{Name: "time", Usage: "%time CODE", Help: "run Go code on the rest of the line and print its wall time", Run: magicTime},
		{Name: "time", Cell: true, Usage: "%%time", Help: "run the cell and print its wall time", Run: magicTime},
		{Name: "who", Usage: "%who", Help: "list the variables of the session with their types", Run: magicWho},
		{Name: "reset", Usage: "%reset", Help: "forget all variables, functions, types and imports", Run: magicReset},
		{Name: "env", Usage: "%env [VAR[=value]]", Help: "list the environment, print VAR, or set VAR", Run: magicEnv},
		{Name: "reload", Usage: "%reload [NAME...]", Help: "import again the local packages (all, or those named) whose files changed", Run: magicReload},
		{Name: "run", Usage: "%run FILE.go", Help: "run a Go file as a cell: its declarations join the session's", Run: magicRun},
		mimeMagic("html", "text/html"),
		mimeMagic("markdown", "text/markdown"),
		mimeMagic("svg", "image/svg+xml"),
	}, shellMagics()...) {
		if err := s.RegisterMagic(m); err != nil {
			panic(err) // the built-in table is wrong: a bug, caught by the tests
		}
	}
}

func magicHelp(_ context.Context, s *Session, _, _ string, _ Output) (*Bundle, error) {
	s.mu.Lock()
	var ms []Magic
	for _, m := range s.magics {
		ms = append(ms, m)
	}
	s.mu.Unlock()
	sort.Slice(ms, func(i, j int) bool {
		if ms[i].Name != ms[j].Name {
			return ms[i].Name < ms[j].Name
		}
		return !ms[i].Cell
	})
	var b strings.Builder
	b.WriteString("Magics (a line magic starts a line at the top of a cell, a cell magic the cell):\n")
	for _, m := range ms {
		usage := m.Usage
		if usage == "" {
			usage = magicKey{m.Name, m.Cell}.String()
		}
		fmt.Fprintf(&b, "  %-22s %s\n", usage, m.Help)
	}
	b.WriteString(shellHelp)
	return TextBundle(strings.TrimRight(b.String(), "\n")), nil
}

// magicTime runs the line's code (%time) or the cell's body (%%time) and
// prints how long it took, even when it fails.
func magicTime(ctx context.Context, s *Session, args, body string, out Output) (*Bundle, error) {
	code := args
	if body != "" {
		code = body
	}
	start := time.Now()
	b, err := s.runMixed(ctx, code, out)
	d := time.Since(start)
	s.flushStreams()
	out.Stream("stdout", fmt.Sprintf("Wall time: %v\n", d.Round(time.Microsecond)))
	return b, err
}

func magicWho(_ context.Context, s *Session, _, _ string, _ Output) (*Bundle, error) {
	globals := s.globals()
	names := make([]string, 0, len(globals))
	for n := range globals {
		if !strings.HasPrefix(n, "_") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return TextBundle("no variables"), nil
	}
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%-16s %s\n", n, s.typeName(n, globals[n]))
	}
	return TextBundle(strings.TrimRight(b.String(), "\n")), nil
}

// typeName names the type of a session variable: as declared when the cell
// wrote one (var g graph.Graph), from the value otherwise.
func (s *Session) typeName(name string, v reflect.Value) string {
	if d := s.decls[name]; d != nil && d.typ != "" {
		return d.typ
	}
	if !v.IsValid() {
		return "untyped nil"
	}
	return dynamicType(v).String()
}

// dynamicType is the type of v, or of the value v holds when v is a
// non-nil interface.
func dynamicType(v reflect.Value) reflect.Type {
	t := v.Type()
	if t.Kind() == reflect.Interface && !v.IsNil() {
		return v.Elem().Type()
	}
	return t
}

func magicReset(_ context.Context, s *Session, _, _ string, _ Output) (*Bundle, error) {
	return nil, s.reset()
}

func magicEnv(_ context.Context, s *Session, args, _ string, out Output) (*Bundle, error) {
	if args == "" {
		env := os.Environ()
		sort.Strings(env)
		return TextBundle(strings.Join(env, "\n")), nil
	}
	name, value, set := strings.Cut(args, "=")
	if !set {
		name, value, set = strings.Cut(args, " ")
	}
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !set {
		v, ok := os.LookupEnv(name)
		if !ok {
			return nil, fmt.Errorf("environment variable %s is not set", name)
		}
		return TextBundle(v), nil
	}
	if err := os.Setenv(name, value); err != nil {
		return nil, err
	}
	out.Stream("stdout", fmt.Sprintf("env: %s=%s\n", name, value))
	return nil, nil
}

// mimeMagic returns the cell magic %%name that displays its body as mime.
func mimeMagic(name, mime string) Magic {
	return Magic{
		Name: name, Cell: true, Usage: "%%" + name,
		Help: "display the cell as " + mime,
		Run: func(_ context.Context, _ *Session, _, body string, _ Output) (*Bundle, error) {
			body = strings.TrimLeft(body, "\n")
			b := TextBundle(body)
			if mime != "text/markdown" {
				b.Data["text/plain"] = fmt.Sprintf("<%s, %d bytes>", mime, len(body))
			}
			b.Data[mime] = body
			return b, nil
		},
	}
}

// helpQuery reports whether code is IPython's request for help on a name,
// x? or ?x (x?? or ??x for more detail: the source of a cell's function),
// and returns the name and the detail level. x is a name or a selector
// (cpu.FloydWarshall, g.Dense); a ? in Go code is a syntax error, so
// nothing else is taken for one.
func helpQuery(code string) (name string, detail int, ok bool) {
	t := strings.TrimSpace(code)
	for _, q := range []string{"??", "?"} {
		if n, ok := strings.CutSuffix(t, q); ok {
			t = n
		} else if n, ok := strings.CutPrefix(t, q); ok {
			t = n
		} else {
			continue
		}
		if q == "??" {
			detail = 1
		}
		break
	}
	if t == strings.TrimSpace(code) || !selectorName.MatchString(t) {
		return "", 0, false
	}
	return t, detail, true
}

// selectorName matches a name or a chain of selectors: x, pkg.Name, v.f.M.
var selectorName = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_]*(\.[\p{L}_][\p{L}\p{N}_]*)*$`)
