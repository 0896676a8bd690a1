package kernel

// The torture tests abuse a running kernel the way a hostile or broken
// network peer, a bad cell or a careless user would, and check after each
// abuse that the kernel still answers kernel_info on shell and control and
// still has the variable it had before. Cases covered elsewhere are not
// repeated here: a bad signature (TestBadSignatureIsNotExecuted), a missing
// delimiter, a header or content that is not JSON and unknown shell and
// control requests (TestMalformedAndUnknownMessages), a runaway loop
// stopped by an interrupt (TestInterruptInfiniteLoop), a panic in a cell
// (TestPanicInCell), 1,000 cells one at a time (TestManyExecutionsMemory);
// session's TestRuntimeErrors, TestStackOverflow and TestGoroutinePanic
// check those cells without the wire.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/pathnotes/pathnotes/internal/memlimit"
	"github.com/pathnotes/pathnotes/internal/rlimittest"
)

// tortureState is the value of the variable torture that every torture
// test sets first and reads after each abuse.
const tortureState = "4242"

// startTorture starts a kernel and a client, and sets the variable torture.
func startTorture(t *testing.T) (*testKernel, *testClient) {
	t.Helper()
	tk := startKernel(t, "")
	c := connect(t, tk, testKey)
	if v := c.value("torture := " + tortureState + "\ntorture"); v != tortureState {
		t.Fatalf("torture = %s", v)
	}
	return tk, c
}

// assertAlive checks that the kernel answers kernel_info on shell and
// control and still has the variable torture, after what is named.
func assertAlive(t *testing.T, c *testClient, after string) {
	t.Helper()
	for _, ch := range c.requestChannels() {
		id := c.send(ch.sock, "kernel_info_request", map[string]any{})
		m, err := c.replyWithin(ch.msgs, id, waitFor)
		if err != nil {
			t.Fatalf("after %s: no kernel_info_reply on %s: %v", after, ch.name, err)
		}
		if r := content(t, m); m.Header.MsgType != "kernel_info_reply" || r["status"] != "ok" {
			t.Fatalf("after %s: %s answered kernel_info with %s %v", after, ch.name, m.Header.MsgType, r)
		}
	}
	ping(t, c, after)
	reply, outs := c.execute("torture", nil)
	if r := content(t, reply); r["status"] != "ok" {
		t.Fatalf("after %s: reading torture failed: %v", after, r)
	}
	for _, m := range outs {
		if m.Header.MsgType == "execute_result" {
			if v := content(t, m)["data"].(map[string]any)["text/plain"]; v != tortureState {
				t.Fatalf("after %s: torture = %v, want %s", after, v, tortureState)
			}
			return
		}
	}
	t.Fatalf("after %s: reading torture published %v", after, types(outs))
}

// ping checks that the heartbeat echoes a ping within waitFor.
func ping(t *testing.T, c *testClient, when string) {
	t.Helper()
	msg := []byte("ping " + newID())
	echoed := make(chan string, 1)
	go func() {
		if err := c.hb.Send(zmq4.NewMsg(msg)); err != nil {
			echoed <- "send: " + err.Error()
			return
		}
		m, err := c.hb.Recv()
		if err != nil {
			echoed <- "receive: " + err.Error()
			return
		}
		echoed <- string(bytes.Join(m.Frames, nil))
	}()
	select {
	case got := <-echoed:
		if got != string(msg) {
			t.Fatalf("%s: the heartbeat echoed %q", when, got)
		}
	case <-time.After(waitFor):
		t.Fatalf("%s: no heartbeat within %v", when, waitFor)
	}
}

// signedFrames is an execute_request that sets torture to 0, signed with
// the test key, cut to its first n frames after the delimiter (n < 0: whole).
func signedFrames(n int) [][]byte {
	content, _ := json.Marshal(executeContent("torture = 0", nil))
	f := handFrames(testKey, nil, strings.ReplaceAll(testHeader, `"m1"`, `"`+newID()+`"`), `{}`, `{}`, string(content))
	if n < 0 {
		return f
	}
	return f[:1+n]
}

// TestTortureTruncatedAndMalformedFrames sends, on shell, control and
// stdin, a signed execute_request cut after each of its frames, empty
// messages, parent and metadata frames that are not JSON, identities
// without a message, and a message with many identities and extra buffers.
// Each broken one sets torture to 0 if it runs: none may run, none may stop
// the kernel; the well-formed ones (a header without msg_id, the many
// identities) must run.
func TestTortureTruncatedAndMalformedFrames(t *testing.T) {
	tk, c := startTorture(t)
	content, _ := json.Marshal(executeContent("torture = 0", nil))
	many := make([][]byte, 0, 300)
	for i := range 200 {
		many = append(many, []byte("id-"+strconv.Itoa(i)))
	}
	many = append(many, signedFrames(-1)...)
	for range 50 {
		many = append(many, make([]byte, 1000)) // buffers: kept, not run as code
	}
	abuse := map[string][][]byte{
		"only the delimiter":    signedFrames(0),
		"empty frame":           {{}},
		"empty frames":          {{}, {}, {}, {}, {}, {}, {}},
		"identities only":       {[]byte("id-1"), []byte("id-2")},
		"two delimiters":        append([][]byte{[]byte("<IDS|MSG>")}, signedFrames(-1)...),
		"parent not JSON":       handFrames(testKey, nil, testHeader, `{"msg_id":`, `{}`, string(content)),
		"metadata not JSON":     handFrames(testKey, nil, testHeader, `{}`, `[1,`, string(content)),
		"binary garbage":        {{0xff, 0xfe, 0x00, 0x01}, []byte("<IDS|MSG>"), {0xff}, {0x00}, {0xc3, 0x28}, {0xff}, {0xff}, {0xff}},
		"header JSON of a list": handFrames(testKey, nil, `[1,2,3]`, `{}`, `{}`, string(content)),
		"header JSON null":      handFrames(testKey, nil, `null`, `{}`, `{}`, string(content)),
		"header without msg_id": handFrames(testKey, nil, `{"msg_type":"execute_request"}`, `{}`, `{}`, `{"code":"anonymous := 7"}`),
		"invalid UTF-8 in JSON": handFrames(testKey, nil, "{\"msg_type\":\"ex\xffecute_request\",\"msg_id\":\"\xc3\x28\"}", `{}`, `{}`, string(content)),
		"signature of the wrong length": append([][]byte{[]byte("<IDS|MSG>"), []byte(strings.Repeat("ab", 1000))},
			signedFrames(-1)[2:]...),
	}
	for n := 1; n <= 4; n++ {
		abuse[fmt.Sprintf("cut after %d frames", n)] = signedFrames(n)
	}
	for _, ch := range []struct {
		name string
		sock zmq4.Socket
	}{{"shell", c.shell}, {"control", c.control}, {"stdin", c.stdin}} {
		for name, frames := range abuse {
			c.sendFrames(ch.sock, frames...)
			assertAlive(t, c, ch.name+": "+name)
		}
	}
	if v := c.value("anonymous"); v != "7" {
		t.Errorf("the request without msg_id did not run: anonymous = %s", v)
	}
	// The long message is well formed: it runs, with its identities.
	c.sendFrames(c.shell, many...)
	if !strings.Contains(tk.logs.String(), "message dropped") {
		t.Error("the log does not mention the dropped messages")
	}
	deadline := time.Now().Add(waitFor)
	for c.value("torture") != "0" {
		if time.Now().After(deadline) {
			t.Fatal("the well-formed message with 200 identities did not run")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTortureWrongShapes sends correctly signed requests of every type
// the kernel serves whose content has the wrong JSON shape, reply and
// status messages where requests belong, and history requests with
// absurd ranges.
func TestTortureWrongShapes(t *testing.T) {
	_, c := startTorture(t)
	shapes := []string{`null`, `[]`, `"text"`, `17`, `{"code":{}}`, `{"code":["torture = 0"]}`,
		`{"code":"torture = 0","silent":"yes","store_history":3,"user_expressions":[1],"allow_stdin":{}}`,
		`{"cursor_pos":"end","code":"tor"}`, `{"detail_level":"max","code":"torture","cursor_pos":2}`,
		`{"comm_id":17,"target_name":null,"data":"x"}`}
	shellTypes := []string{"execute_request", "complete_request", "inspect_request", "is_complete_request",
		"history_request", "comm_info_request", "comm_open", "comm_msg", "comm_close", "connect_request",
		"kernel_info_request", "execute_reply", "status", "stream", "execute_input", "input_reply", ""}
	for _, mt := range shellTypes {
		for _, shape := range shapes {
			h := NewHeader(mt, c.session)
			hb, _ := json.Marshal(h)
			c.sendFrames(c.shell, handFrames(testKey, nil, string(hb), `{}`, `{}`, shape)...)
		}
		assertAlive(t, c, mt+" of the wrong shape")
	}
	for _, shape := range shapes {
		for _, mt := range []string{"kernel_info_request", "interrupt_request", "execute_request", "status"} {
			h := NewHeader(mt, c.session)
			hb, _ := json.Marshal(h)
			c.sendFrames(c.control, handFrames(testKey, nil, string(hb), `{}`, `{}`, shape)...)
		}
		for _, mt := range []string{"input_reply", "execute_request", "kernel_info_request"} {
			h := NewHeader(mt, c.session)
			hb, _ := json.Marshal(h)
			c.sendFrames(c.stdin, handFrames(testKey, nil, string(hb), `{}`, `{}`, shape)...)
		}
	}
	assertAlive(t, c, "control and stdin messages of the wrong shape")
	for _, req := range []map[string]any{
		{"hist_access_type": "tail", "n": -5},
		{"hist_access_type": "tail", "n": 1 << 53},
		{"hist_access_type": "range", "session": -1 << 40, "start": 1 << 40, "stop": -3},
		{"hist_access_type": "range", "session": 0, "start": -100, "stop": 1 << 53},
		{"hist_access_type": "search", "pattern": strings.Repeat("*?[", 1000), "n": 3},
		{"hist_access_type": "search", "pattern": "[", "unique": true},
	} {
		id := c.send(c.shell, "history_request", req)
		if _, err := c.replyWithin(c.shellMsgs, id, waitFor); err != nil {
			t.Errorf("history_request %v: %v", req, err)
		}
		assertAlive(t, c, fmt.Sprintf("history_request %v", req))
	}
}

// TestTortureRawTCPPeers connects to every port with plain TCP and sends
// what is not ZMTP: an HTTP request, a greeting cut short, a greeting
// followed by zeros; each connection is then dropped, and a new client
// must still get answers. A peer that connects and stays silent is
// TestSilentPeerDoesNotBlockConnections's case: zmq4 by itself greets a
// new connection in its accept loop without a deadline.
func TestTortureRawTCPPeers(t *testing.T) {
	tk, c := startTorture(t)
	ci := tk.k.Connection()
	ports := map[string]int{"shell": ci.ShellPort, "control": ci.ControlPort, "stdin": ci.StdinPort,
		"iopub": ci.IOPubPort, "hb": ci.HBPort}
	greeting := append([]byte{0xff, 0, 0, 0, 0, 0, 0, 0, 1, 0x7f, 3, 0}, []byte("NULL")...)
	for name, port := range ports {
		addr := net.JoinHostPort(ci.IP, strconv.Itoa(port))
		for _, payload := range [][]byte{
			[]byte("GET / HTTP/1.1\r\nHost: kernel\r\n\r\n"),
			greeting[:5],
			append(greeting, make([]byte, 200)...),
		} {
			conn, err := net.DialTimeout("tcp", addr, waitFor)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			conn.SetDeadline(time.Now().Add(time.Second))
			conn.Write(payload)
			conn.Close()
		}
	}
	assertAlive(t, c, "raw TCP peers")
	c2 := connect(t, tk, testKey)
	assertAlive(t, c2, "raw TCP peers, from a new client")
}

// TestTortureVanishingPeer has a client send requests and close its sockets
// before the replies come: the kernel replies to nobody and goes on.
func TestTortureVanishingPeer(t *testing.T) {
	tk, c := startTorture(t)
	for range 3 {
		gone := connect(t, tk, testKey)
		gone.send(gone.shell, "execute_request", executeContent(
			"for i := 0; i < 1000; i++ { fmt.Println(i) }\nimport \"time\"\ntime.Sleep(50 * time.Millisecond)", nil))
		gone.send(gone.shell, "kernel_info_request", map[string]any{})
		gone.send(gone.control, "kernel_info_request", map[string]any{})
		gone.close()
	}
	assertAlive(t, c, "peers that left before their replies")
}

// TestTortureHugeCode runs a 20 MB cell: a string literal of 20 MB. The
// request, its echo on iopub and the parse hold several copies at once;
// a low GC percentage keeps the test's peak memory near what is live.
func TestTortureHugeCode(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	_, c := startTorture(t)
	var b strings.Builder
	b.Grow(20<<20 + 100)
	b.WriteString("huge := \"")
	for b.Len() < 20<<20-10 {
		b.WriteString("abcdefghij")
	}
	b.WriteString("\"\nlen(huge)")
	size := b.Len()
	want := strconv.Itoa(size - len("huge := \"") - len("\"\nlen(huge)"))
	id := c.send(c.shell, "execute_request", executeContent(b.String(), nil))
	m := c.reply(c.shellMsgs, id)
	if r := content(t, m); r["status"] != "ok" {
		t.Fatalf("20 MB cell: %v", r)
	}
	var echoed, result bool
	for _, out := range c.outputs(id) {
		switch out.Header.MsgType {
		case "execute_input":
			echo := content(t, out)["code"].(string)
			echoed = len(echo) == size && strings.HasSuffix(echo, "abcdefghij\"\nlen(huge)")
		case "execute_result":
			result = true
			if v := content(t, out)["data"].(map[string]any)["text/plain"]; v != want {
				t.Errorf("len(huge) = %v, want %s", v, want)
			}
		}
	}
	if !echoed || !result {
		t.Errorf("the 20 MB cell's execute_input echoed it whole: %v; it published a result: %v", echoed, result)
	}
	c.execute("huge = \"\"", nil)
	assertAlive(t, c, "a 20 MB cell")
}

// TestTortureHugeOutput has a cell print 50 MB in 8 kB lines, counts what
// arrives without keeping it, and checks that the live heap of the process
// (kernel and client) never held the output whole and keeps nothing of it
// after the cell.
func TestTortureHugeOutput(t *testing.T) {
	_, c := startTorture(t)
	const lines, lineLen = 50 << 7, 8 << 10
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.GC() // what is live, not what awaits collection
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	id := c.send(c.shell, "execute_request", executeContent(fmt.Sprintf(
		"import \"strings\"\nline := strings.Repeat(\"x\", %d) + \"\\n\"\nfor i := 0; i < %d; i++ { fmt.Print(line) }",
		lineLen-1, lines), nil))
	var got, newlines, messages int
	timeout := time.After(time.Minute)
	for done := false; !done; {
		select {
		case m := <-c.iopubMsgs:
			if parentID(m) != id {
				continue
			}
			switch m.Header.MsgType {
			case "stream":
				text := content(t, m)["text"].(string)
				got += len(text)
				newlines += strings.Count(text, "\n")
				messages++
				if strings.Trim(text, "x\n") != "" {
					t.Fatalf("stream message with other text than the cell printed: %.40q", text)
				}
			case "status":
				done = content(t, m)["execution_state"] == "idle"
			}
		case <-timeout:
			t.Fatalf("the 50 MB cell did not end within a minute (%d bytes arrived)", got)
		}
	}
	close(stop)
	<-sampled
	if r := content(t, c.reply(c.shellMsgs, id)); r["status"] != "ok" {
		t.Fatalf("reply %v", r)
	}
	if got != lines*lineLen || newlines != lines {
		t.Errorf("%d bytes in %d lines arrived, want %d in %d", got, newlines, lines*lineLen, lines)
	}
	grown := int64(peak.Load()) - int64(base)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	kept := int64(ms.HeapAlloc) - int64(base)
	t.Logf("50 MB in %d stream messages in %v; live heap peaked %d MB above the start, %d MB after",
		messages, time.Since(start), grown>>20, kept>>20)
	// In flight at once: the pending chunk, its JSON and frames in the
	// kernel, and the messages the client has decoded but this loop has
	// not read yet, which grow when the two cores are busy (20 to 63 MB
	// measured). A copy of the whole output kept anywhere adds 50 MB.
	if grown > 80<<20 {
		t.Errorf("the live heap grew by %d MB while 50 MB streamed: the output is kept somewhere", grown>>20)
	}
	if kept > 8<<20 {
		t.Errorf("%d MB more live heap after the 50 MB cell than before it", kept>>20)
	}
	assertAlive(t, c, "50 MB of output")
}

// TestTortureFloodOfCells queues 2,000 small cells without waiting for any
// reply: each must run once, in order, with its own execution count.
func TestTortureFloodOfCells(t *testing.T) {
	_, c := startTorture(t)
	c.value("flood := 0\nflood")
	const n = 2000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = c.send(c.shell, "execute_request", executeContent("flood++", nil))
	}
	first := 0
	for i, id := range ids {
		m, err := c.replyWithin(c.shellMsgs, id, waitFor)
		if err != nil {
			t.Fatalf("cell %d: %v", i, err)
		}
		r := content(t, m)
		count, _ := r["execution_count"].(float64)
		if i == 0 {
			first = int(count)
		}
		if r["status"] != "ok" || int(count) != first+i {
			t.Fatalf("cell %d: %v, want ok with count %d", i, r, first+i)
		}
	}
	if v := c.value("flood"); v != strconv.Itoa(n) {
		t.Errorf("flood = %s after %d cells", v, n)
	}
	assertAlive(t, c, "2,000 queued cells")
}

// TestTortureCellAbuse runs, through the wire in one kernel, cells that
// would end an unguarded process or leave the kernel stuck.
func TestTortureCellAbuse(t *testing.T) {
	_, c := startTorture(t)
	cases := []struct {
		name, code string
		ename      string // the error; "" for a cell whose status is not checked
		output     string // a substring of its stdout and stderr
	}{
		{"a goroutine that panics",
			"import \"time\"\ngo func() { panic(\"from a goroutine\") }()\ntime.Sleep(100 * time.Millisecond)",
			"", "panic in a goroutine: from a goroutine"},
		{"unbounded recursion", "func down(n int) int { return down(n+1) + 1 }\ndown(0)", "StackOverflow", ""},
		{"os.Exit", "import \"os\"\nos.Exit(3)", "panic", ""},
		{"os.Exit through a variable", "import \"os\"\nquit := os.Exit\nquit(4)", "panic", ""},
		{"log.Fatal", "import \"log\"\nlog.Fatalf(\"fatal %d\", 5)", "panic", ""},
		{"runtime.Goexit", "import \"runtime\"\nfmt.Println(\"before\")\nruntime.Goexit()\ntorture = 1", "Goexit", "before"},
		{"a String method that panics",
			"type bomb struct{}\nfunc (bomb) String() string { panic(\"in String\") }\nbomb{}", "panic", ""},
		{"a panic in a deferred call while panicking",
			"func twice() { defer func() { panic(\"second\") }(); panic(\"first\") }\ntwice()", "panic", ""},
		{"a nil function call", "var f func()\nf()", "panic", ""},
	}
	for _, tc := range cases {
		reply, outs := c.execute(tc.code, nil)
		r := content(t, reply)
		if tc.ename != "" && (r["status"] != "error" || r["ename"] != tc.ename) {
			t.Errorf("%s: reply %v, want error %s", tc.name, r, tc.ename)
		}
		if text := streamText(t, outs, "stdout") + streamText(t, outs, "stderr"); !strings.Contains(text, tc.output) {
			t.Errorf("%s: output %q lacks %q", tc.name, text, tc.output)
		}
		assertAlive(t, c, tc.name)
	}
}

// TestTortureInterruptWhileShowingAResult interrupts a cell whose result's
// String method never returns: the interrupt reaches the rendering too.
func TestTortureInterruptWhileShowingAResult(t *testing.T) {
	_, c := startTorture(t)
	id := c.send(c.shell, "execute_request", executeContent(
		"type forever struct{}\nfunc (forever) String() string { for {} }\nforever{}", nil))
	time.Sleep(300 * time.Millisecond)
	ping(t, c, "while a cell spins")
	c.reply(c.controlMsgs, c.send(c.control, "interrupt_request", map[string]any{}))
	m, err := c.replyWithin(c.shellMsgs, id, 2*time.Second)
	if err != nil {
		t.Fatalf("the endless String method was not stopped: %v", err)
	}
	if r := content(t, m); r["status"] != "error" || r["ename"] != "Interrupted" {
		t.Errorf("reply %v, want Interrupted", r)
	}
	assertAlive(t, c, "an interrupted String method")
}

// TestTortureInterruptStorm sends 200 interrupt requests while no cell
// runs, on control and shell: each is answered, and none reaches the cells
// that run after them.
func TestTortureInterruptStorm(t *testing.T) {
	_, c := startTorture(t)
	var ids []string
	for i := range 200 {
		sock := c.control
		if i%2 == 1 {
			sock = c.shell
		}
		ids = append(ids, c.send(sock, "interrupt_request", map[string]any{}))
	}
	for i, id := range ids {
		msgs := c.controlMsgs
		if i%2 == 1 {
			msgs = c.shellMsgs
		}
		if r := content(t, c.reply(msgs, id)); r["status"] != "ok" {
			t.Fatalf("interrupt_reply %d: %v", i, r)
		}
	}
	if v := c.value("import \"time\"\ntime.Sleep(200 * time.Millisecond)\ntorture + 1"); v != "4243" {
		t.Errorf("the cell after the interrupts: %s", v)
	}
	assertAlive(t, c, "200 interrupts while idle")
}

// TestTortureBackgroundPrinter leaves a goroutine printing between and
// during later cells: their results and the kernel's answers are not
// disturbed by it.
func TestTortureBackgroundPrinter(t *testing.T) {
	_, c := startTorture(t)
	// The goroutine takes the channel as an argument: yaegi's goroutines
	// that read global variables race with the cells that run meanwhile.
	reply, _ := c.execute("import \"time\"\nstop := make(chan bool)\ngo func(stop chan bool) {\n"+
		"\tfor {\n\t\tselect {\n\t\tcase <-stop:\n\t\t\treturn\n\t\tdefault:\n"+
		"\t\t\tfmt.Println(\"noise\")\n\t\t\ttime.Sleep(time.Millisecond)\n\t\t}\n\t}\n}(stop)", nil)
	if r := content(t, reply); r["status"] != "ok" {
		t.Fatalf("starting the printer: %v", r)
	}
	noisy := 0
	for i := range 20 {
		reply, outs := c.execute(fmt.Sprintf("time.Sleep(5 * time.Millisecond)\ntorture + %d", i), nil)
		if r := content(t, reply); r["status"] != "ok" {
			t.Fatalf("cell %d: %v", i, r)
		}
		if strings.Contains(streamText(t, outs, "stdout"), "noise") {
			noisy++
		}
		results := 0
		for _, m := range outs {
			if m.Header.MsgType == "execute_result" {
				results++
				if v := content(t, m)["data"].(map[string]any)["text/plain"]; v != strconv.Itoa(4242+i) {
					t.Errorf("cell %d: result %v", i, v)
				}
			}
		}
		if results != 1 {
			t.Fatalf("cell %d published %v", i, types(outs))
		}
	}
	if noisy == 0 {
		t.Error("the printer's output reached none of the cells: it did not run")
	}
	assertAlive(t, c, "a goroutine printing all along")
	c.execute("close(stop)", nil)
}

// hogLimitEnv runs TestTortureMemoryHogs's cells in a child process whose
// address space is limited to 6 GiB.
const hogLimitEnv = "PATHNOTES_TEST_HOG_LIMIT"

// maxMemoryErrorReply bounds the time from a cell's request to its
// MemoryError reply (docs/reliability.md): the check collects the garbage
// and returns free memory to the system once before it refuses.
const maxMemoryErrorReply = 5 * time.Second

// TestTortureMemoryHogs runs cells that ask for more memory than there is,
// which Go's runtime answers by ending the process ("fatal error: out of
// memory"), with no limit (the machine's memory) and, in a child process,
// under a 6 GiB address-space limit: each must get a MemoryError reply
// within maxMemoryErrorReply, and the kernel must keep its state.
func TestTortureMemoryHogs(t *testing.T) {
	if os.Getenv(hogLimitEnv) == "1" {
		rlimittest.LimitAddressSpaceTo(t, 6<<30)
		tortureMemoryHogs(t)
		return
	}
	t.Run("no limit", tortureMemoryHogs)
	t.Run("6 GiB limit", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("the address-space limit is read through Linux's /proc")
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestTortureMemoryHogs$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), hogLimitEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestTortureMemoryHogs") {
			t.Fatalf("under a 6 GiB limit: %v\n%s", err, out)
		}
		t.Logf("the child under a 6 GiB limit:\n%s", out)
	})
}

// tortureMemoryHogs sends the cells of TestTortureMemoryHogs to a kernel.
func tortureMemoryHogs(t *testing.T) {
	_, c := startTorture(t)
	// 30 GiB, unless the machine has that much to spare: then twice what
	// it has.
	size := uint64(30 << 30)
	if avail, ok := memlimit.Available(); ok && avail.Bytes >= size-memlimit.Headroom(size) {
		size = 2 * avail.Bytes
	}
	c.execute("import \"strings\"", nil)
	cells := []string{
		fmt.Sprintf("b := make([]byte, %d)", size),
		"b := make([]int64, 1<<40)",
		"n := 1 << 40\nb := make([]float64, 0, n)",
		"func grow(n int) []int32 { return make([]int32, n) }\nx := grow(1 << 40)",
		"p := new([1 << 43]byte)",
		"var arr [1 << 40]int64",
		"s := strings.Repeat(\"pathnotes\", 1<<40)",
		"ch := make(chan [4096]byte, 1<<32)",
	}
	if os.Getenv(hogLimitEnv) == "1" {
		// Less than the machine has, more than the limit leaves.
		cells = append(cells, "b := make([]byte, 5<<30)")
	}
	for _, code := range cells {
		start := time.Now()
		reply, outs := c.execute(code, nil)
		took := time.Since(start)
		r := content(t, reply)
		if r["status"] != "error" || r["ename"] != "MemoryError" || !strings.Contains(fmt.Sprint(r["evalue"]), "need ") {
			t.Errorf("%q: reply %v, want a MemoryError", code, r)
		}
		published := false
		for _, m := range outs {
			published = published || m.Header.MsgType == "error" && content(t, m)["ename"] == "MemoryError"
		}
		if !published {
			t.Errorf("%q: no MemoryError on iopub: %v", code, types(outs))
		}
		if took > maxMemoryErrorReply {
			t.Errorf("%q: the MemoryError took %v", code, took)
		}
		t.Logf("%v for %q: %v", took.Round(time.Millisecond), code, r["evalue"])
		assertAlive(t, c, code)
	}
}
