package session

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStreams checks where the text a cell writes goes.
func TestStreams(t *testing.T) {
	tests := []struct {
		name, code     string
		stdout, stderr string
	}{
		{"fmt", `fmt.Print("a"); fmt.Printf("%d", 1); fmt.Println("b")`, "a1b\n", ""},
		{"os.Stdout keeps its type", "import \"os\"\nos.Stdout.WriteString(\"w\\n\")\nfmt.Fprintln(os.Stdout, \"f\")", "w\nf\n", ""},
		{"os.Stderr", "import \"os\"\nfmt.Fprintln(os.Stderr, \"oops\")", "", "oops\n"},
		{"println builtin", "println(\"p\", 1)", "p 1\n", ""},
		{"log goes to stderr", "import \"log\"\nlog.SetFlags(0)\nlog.Print(\"logged\")", "", "logged\n"},
		{"bufio writer on stdout", "import (\"bufio\"; \"os\")\nw := bufio.NewWriter(os.Stdout)\nw.WriteString(\"buffered\\n\")\nw.Flush()", "buffered\n", ""},
		{"non-ASCII", "fmt.Println(\"héllo, 世界\")", "héllo, 世界\n", ""},
	}
	s := newSession(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecorder()
			if _, err := s.Execute(t.Context(), tt.code, r); err != nil {
				t.Fatal(err)
			}
			if r.stdout() != tt.stdout || r.stderr() != tt.stderr {
				t.Errorf("stdout %q stderr %q, want %q %q", r.stdout(), r.stderr(), tt.stdout, tt.stderr)
			}
		})
	}
}

// TestStreamWhileRunning checks that a line printed by a long cell reaches
// the output before the cell ends.
func TestStreamWhileRunning(t *testing.T) {
	s := newSession(t)
	r := newRecorder()
	done := make(chan error, 1)
	go func() {
		_, err := s.Execute(t.Context(), "import \"time\"\nfmt.Println(\"early\")\ntime.Sleep(2 * time.Second)\nfmt.Println(\"late\")", r)
		done <- err
	}()
	deadline := time.Now().Add(time.Second)
	for r.stdout() != "early\n" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := r.stdout(); got != "early\n" {
		t.Errorf("1s into the cell, stdout is %q, want %q", got, "early\n")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := r.stdout(); got != "early\nlate\n" {
		t.Errorf("stdout %q at the end", got)
	}
}

// TestManyLinesBatched checks that a loop printing many lines loses none
// and sends them in few messages.
func TestManyLinesBatched(t *testing.T) {
	s := newSession(t)
	r := &countingOutput{recorder: newRecorder()}
	if _, err := s.Execute(t.Context(), "for i := 0; i < 5000; i++ { fmt.Println(i) }", r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout(), "\n"), "\n")
	if len(lines) != 5000 || lines[0] != "0" || lines[4999] != "4999" {
		t.Fatalf("got %d lines", len(lines))
	}
	if r.messages > 500 {
		t.Errorf("%d stream messages for 5000 lines: not batched", r.messages)
	}
}

type countingOutput struct {
	*recorder
	messages int
}

func (c *countingOutput) Stream(name, text string) {
	c.mu.Lock()
	c.messages++
	c.mu.Unlock()
	c.recorder.Stream(name, text)
}

// TestGoroutineOutputAfterCell checks that a goroutine that prints after
// its cell ended prints to the latest cell's output.
func TestGoroutineOutputAfterCell(t *testing.T) {
	s := newSession(t)
	first := newRecorder()
	if _, err := s.Execute(t.Context(), "import \"time\"\ngo func() { time.Sleep(300 * time.Millisecond); fmt.Println(\"from goroutine\") }()", first); err != nil {
		t.Fatal(err)
	}
	second := newRecorder()
	if _, err := s.Execute(t.Context(), "x := 1\n_ = x", second); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for !strings.Contains(second.stdout(), "from goroutine") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := second.stdout(); got != "from goroutine\n" {
		t.Errorf("latest cell's stdout %q; first cell's %q", got, first.stdout())
	}
}

// TestStdin checks that reading standard input asks the front end.
func TestStdin(t *testing.T) {
	tests := []struct {
		name, code string
		inputs     []string
		want       string
	}{
		{"fmt.Scanln", "var name string\nfmt.Print(\"name? \")\nfmt.Scanln(&name)\nname", []string{"Ada"}, `"Ada"`},
		{"bufio reader", "import (\"bufio\"; \"os\")\nrd := bufio.NewReader(os.Stdin)\nline, _ := rd.ReadString('\\n')\nline", []string{"one line"}, `"one line\n"`},
		{"scanner, two lines", "import (\"bufio\"; \"os\")\nsc := bufio.NewScanner(os.Stdin)\nsc.Scan()\na := sc.Text()\nsc.Scan()\na + \"+\" + sc.Text()", []string{"x", "y"}, `"x+y"`},
		{"fmt.Scan of numbers", "var a, b int\nfmt.Scan(&a, &b)\na * b", []string{"6 7"}, "42"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			r := newRecorder()
			r.inputs = tt.inputs
			b, err := s.Execute(t.Context(), tt.code, r)
			if err != nil {
				t.Fatal(err)
			}
			if text(b) != tt.want {
				t.Errorf("got %q, want %q", text(b), tt.want)
			}
			if r.prompts != len(tt.inputs) {
				t.Errorf("%d input requests, want %d", r.prompts, len(tt.inputs))
			}
		})
	}
	s := newSession(t)
	r := newRecorder()
	r.noInput = true
	b, err := s.Execute(t.Context(), "var n int\n_, err := fmt.Scanln(&n)\nerr != nil", r)
	if err != nil || text(b) != "true" {
		t.Errorf("without stdin: %q, %v; want the read to fail", text(b), err)
	}
}

// TestDisplay checks Session.Display: it goes to the running cell after
// what the cell printed before, and is dropped before any cell.
func TestDisplay(t *testing.T) {
	s := newSession(t)
	s.Display(*TextBundle("dropped"), "", false) // no cell yet: must not panic
	r := &orderedOutput{}
	show := func(text string) { s.Display(*TextBundle(text), "id", false) }
	s2, err := New(Options{Prelude: []string{"fmt"}, Symbols: []interp_Exports{{"example.com/show/show": {"Show": reflectValueOf(show)}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	s = s2
	if _, err := s.Execute(context.Background(), "import \"example.com/show\"\nfmt.Println(\"before\")\nshow.Show(\"shown\")\nfmt.Println(\"after\")", r); err != nil {
		t.Fatal(err)
	}
	want := []string{"stdout:before\n", "display:shown", "stdout:after\n"}
	if strings.Join(r.events, "|") != strings.Join(want, "|") {
		t.Errorf("events %q, want %q", r.events, want)
	}
}

// orderedOutput records stream text and displays in the order they come.
type orderedOutput struct {
	recorder
	events []string
}

func (o *orderedOutput) Stream(name, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, name+":"+text)
}

func (o *orderedOutput) Display(b Bundle, _ string, _ bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, "display:"+b.Data["text/plain"].(string))
}

// heldOutput is a recorder whose first Stream call closes entered and then
// waits for release, as a front end that is slow to take one message.
type heldOutput struct {
	*recorder
	once             sync.Once
	entered, release chan struct{}
}

func (h *heldOutput) Stream(name, text string) {
	h.once.Do(func() {
		close(h.entered)
		<-h.release
	})
	h.recorder.Stream(name, text)
}

// TestSyncWaitsForSend holds the batching goroutine inside its send of text
// written before a sync: the sync must wait for that send, not return
// because nothing is left to read (the cell's reply would then overtake
// its output, as TestLocalPackageUse once saw on a loaded machine).
func TestSyncWaitsForSend(t *testing.T) {
	out := &heldOutput{recorder: newRecorder(), entered: make(chan struct{}), release: make(chan struct{})}
	st, err := newStream("stdout", func() Output { return out })
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	if _, err := st.w.WriteString("before the sync\n"); err != nil {
		t.Fatal(err)
	}
	<-out.entered
	synced := make(chan struct{})
	go func() {
		st.sync()
		close(synced)
	}()
	select {
	case <-synced:
		t.Fatal("sync returned while the text written before it was still being sent")
	case <-time.After(100 * time.Millisecond):
	}
	close(out.release)
	<-synced
	if got := out.stdout(); got != "before the sync\n" {
		t.Errorf("after the sync the front end has %q", got)
	}
}
