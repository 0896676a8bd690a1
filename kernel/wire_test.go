package kernel

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"testing"
)

// handFrames builds a message by hand, independently of Encode, signed with key.
func handFrames(key string, ids [][]byte, header, parent, metadata, content string) [][]byte {
	sig := ""
	if key != "" {
		h := hmac.New(sha256.New, []byte(key))
		for _, f := range []string{header, parent, metadata, content} {
			h.Write([]byte(f))
		}
		sig = hex.EncodeToString(h.Sum(nil))
	}
	out := append([][]byte{}, ids...)
	return append(out, []byte("<IDS|MSG>"), []byte(sig), []byte(header), []byte(parent), []byte(metadata), []byte(content))
}

const testHeader = `{"msg_id":"m1","session":"s1","username":"u","date":"2024-01-01T00:00:00Z","msg_type":"execute_request","version":"5.3","extra":1}`

func TestDecodeVerifiesAndKeepsIdentities(t *testing.T) {
	s, err := NewSigner("secret", "hmac-sha256")
	if err != nil {
		t.Fatal(err)
	}
	ids := [][]byte{[]byte("id-a"), []byte("id-b")}
	m, err := s.Decode(handFrames("secret", ids, testHeader, `{}`, `{"k":"v"}`, `{"code":"1+1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Identities) != 2 || string(m.Identities[0]) != "id-a" || string(m.Identities[1]) != "id-b" {
		t.Errorf("identities = %q", m.Identities)
	}
	if m.Header.MsgType != "execute_request" || m.Header.MsgID != "m1" {
		t.Errorf("header = %+v", m.Header)
	}
	if string(m.RawHeader) != testHeader {
		t.Errorf("raw header not kept byte for byte: %s", m.RawHeader)
	}
	if m.Metadata["k"] != "v" {
		t.Errorf("metadata = %v", m.Metadata)
	}
	var c struct{ Code string }
	if err := m.DecodeContent(&c); err != nil || c.Code != "1+1" {
		t.Errorf("content = %+v, %v", c, err)
	}
}

func TestDecodeRejects(t *testing.T) {
	s, _ := NewSigner("secret", "hmac-sha256")
	good := handFrames("secret", nil, testHeader, `{}`, `{}`, `{}`)
	cases := map[string]struct {
		frames [][]byte
		want   error
	}{
		"wrong key":         {handFrames("other", nil, testHeader, `{}`, `{}`, `{}`), ErrBadSignature},
		"missing signature": {handFrames("", nil, testHeader, `{}`, `{}`, `{}`), ErrBadSignature},
		"not hex":           {append([][]byte{good[0], []byte("zz")}, good[2:]...), ErrBadSignature},
		"tampered content":  {append(append([][]byte{}, good[:5]...), []byte(`{"code":"x"}`)), ErrBadSignature},
		"no delimiter":      {good[1:], ErrMalformed},
		"too few frames":    {good[:4], ErrMalformed},
		"header not JSON":   {handFrames("secret", nil, `{"msg_type":`, `{}`, `{}`, `{}`), ErrMalformed},
		"no msg_type":       {handFrames("secret", nil, `{"msg_id":"x"}`, `{}`, `{}`, `{}`), ErrMalformed},
		"content not JSON":  {handFrames("secret", nil, testHeader, `{}`, `{}`, `{"code":`), ErrMalformed},
		"metadata not JSON": {handFrames("secret", nil, testHeader, `{}`, `[`, `{}`), ErrMalformed},
		"parent not JSON":   {handFrames("secret", nil, testHeader, `{`, `{}`, `{}`), ErrMalformed},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := s.Decode(c.frames); !errors.Is(err, c.want) {
				t.Errorf("Decode error = %v, want %v", err, c.want)
			}
		})
	}
}

func TestEmptyKeySignsNothing(t *testing.T) {
	s, err := NewSigner("", "")
	if err != nil {
		t.Fatal(err)
	}
	frames, err := s.Encode(nil, NewHeader("status", "sess"), nil, nil, map[string]any{"execution_state": "idle"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(frames[0]) != "<IDS|MSG>" || len(frames[1]) != 0 {
		t.Errorf("frames start %q %q, want delimiter and empty signature", frames[0], frames[1])
	}
	if _, err := s.Decode(handFrames("", nil, testHeader, `{}`, `{}`, `{}`)); err != nil {
		t.Errorf("unsigned message rejected without a key: %v", err)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	s, _ := NewSigner("k", "hmac-sha256")
	parent := json.RawMessage(testHeader)
	h := NewHeader("execute_reply", "sess")
	frames, err := s.Encode([][]byte{[]byte("peer")}, h, parent, nil, map[string]any{"status": "ok"}, [][]byte{[]byte("buf")})
	if err != nil {
		t.Fatal(err)
	}
	// The signature must be what an independent HMAC computes.
	want := handFrames("k", [][]byte{[]byte("peer")}, string(frames[3]), string(frames[4]), string(frames[5]), string(frames[6]))
	if string(frames[2]) != string(want[2]) {
		t.Errorf("signature %s, want %s", frames[2], want[2])
	}
	m, err := s.Decode(frames)
	if err != nil {
		t.Fatal(err)
	}
	if m.Header != h || string(m.RawParent) != testHeader || len(m.Buffers) != 1 || string(m.Buffers[0]) != "buf" {
		t.Errorf("round trip: header %+v parent %s buffers %q", m.Header, m.RawParent, m.Buffers)
	}
	if string(m.Identities[0]) != "peer" {
		t.Errorf("identities %q", m.Identities)
	}
}

func TestNewSignerSchemes(t *testing.T) {
	if _, err := NewSigner("k", "hmac-md5"); err == nil {
		t.Error("hmac-md5 accepted")
	}
	if _, err := NewSigner("", "hmac-md5"); err != nil {
		t.Errorf("empty key with any scheme: %v", err)
	}
}

func TestNewHeader(t *testing.T) {
	h := NewHeader("status", "sess")
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if !uuid.MatchString(h.MsgID) {
		t.Errorf("msg_id %q is not a version-4 UUID", h.MsgID)
	}
	if h2 := NewHeader("status", "sess"); h2.MsgID == h.MsgID {
		t.Error("two headers share a msg_id")
	}
	if h.Version != "5.3" || h.Session != "sess" || h.MsgType != "status" {
		t.Errorf("header %+v", h)
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`).MatchString(h.Date) {
		t.Errorf("date %q is not ISO 8601 with microseconds", h.Date)
	}
}

func TestReadConnectionFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.json", `{"transport":"tcp","ip":"127.0.0.1","shell_port":1,"iopub_port":2,"stdin_port":3,
		"control_port":4,"hb_port":5,"key":"abc","signature_scheme":"hmac-sha256","kernel_name":"pathnotes"}`)
	ci, err := ReadConnectionFile(ok)
	if err != nil {
		t.Fatal(err)
	}
	if ci.ShellPort != 1 || ci.HBPort != 5 || ci.Key != "abc" || ci.endpoint(ci.ControlPort) != "tcp://127.0.0.1:4" {
		t.Errorf("read %+v", ci)
	}
	for name, s := range map[string]string{
		"udp.json":    `{"transport":"udp","ip":"127.0.0.1"}`,
		"scheme.json": `{"transport":"tcp","ip":"127.0.0.1","key":"k","signature_scheme":"hmac-sha1"}`,
		"port.json":   `{"transport":"tcp","ip":"127.0.0.1","shell_port":70000}`,
		"json.json":   `{"transport":`,
	} {
		if _, err := ReadConnectionFile(write(name, s)); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := ReadConnectionFile(dir + "/missing.json"); err == nil {
		t.Error("missing file accepted")
	}
}
