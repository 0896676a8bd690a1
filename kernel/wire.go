package kernel

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"sync"
	"time"
)

// ProtocolVersion is the version of the Jupyter messaging protocol that the
// kernel speaks; it is put in every header it sends.
const ProtocolVersion = "5.3"

// delimiter separates the routing identities from the message proper in
// every frame list of the Jupyter wire protocol.
const delimiter = "<IDS|MSG>"

// Header is the header of a Jupyter message. The kernel writes one for every
// message it sends and copies the request's header, byte for byte, into the
// parent_header of every message that answers it.
type Header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

// Message is one Jupyter message as it travels on a socket.
//
// On receipt, Content and RawParent hold the raw JSON of the content and the
// parent header, and RawHeader the raw header, so that a reply can echo the
// header exactly, including fields this kernel does not know.
type Message struct {
	Identities [][]byte        // ZeroMQ routing identities, preserved for replies
	Header     Header          // parsed header
	RawHeader  json.RawMessage // the header as received
	RawParent  json.RawMessage // parent_header as received ({} when none)
	Metadata   map[string]any  // metadata, never nil after decoding
	Content    json.RawMessage // content as received
	Buffers    [][]byte        // extra binary buffers, if any
	// Signature is the HMAC of a received message, decoded from its hex
	// frame; nil when the Signer has no key.
	Signature []byte
}

// DecodeContent unmarshals the message content into v.
func (m *Message) DecodeContent(v any) error {
	if err := json.Unmarshal(m.Content, v); err != nil {
		return fmt.Errorf("%s %s: content: %w", m.Header.MsgType, m.Header.MsgID, err)
	}
	return nil
}

// Errors that Decode returns: a message with a bad signature or malformed
// frames is dropped by the kernel, which logs the error.
var (
	ErrBadSignature = errors.New("bad message signature")
	ErrMalformed    = errors.New("malformed message")
)

// Signer signs and verifies messages with HMAC-SHA256 over the header,
// parent header, metadata and content frames. A Signer with an empty key
// signs nothing and accepts every signature, as the protocol prescribes.
// It is safe for concurrent use.
type Signer struct {
	key  []byte
	pool sync.Pool // of hash.Hash, because an HMAC keeps state while it sums
}

// NewSigner returns a Signer for key and scheme, the connection file's key and
// signature_scheme. Only "hmac-sha256" (and "" for an empty key) is supported.
func NewSigner(key, scheme string) (*Signer, error) {
	if key != "" && scheme != "hmac-sha256" {
		return nil, fmt.Errorf("signature scheme %q is not supported (want hmac-sha256)", scheme)
	}
	s := &Signer{key: []byte(key)}
	s.pool.New = func() any { return hmac.New(sha256.New, s.key) }
	return s, nil
}

// sign returns the hex HMAC of the four signed frames, or "" without a key.
func (s *Signer) sign(frames [4][]byte) string {
	if len(s.key) == 0 {
		return ""
	}
	return hex.EncodeToString(s.sum(frames))
}

func (s *Signer) sum(frames [4][]byte) []byte {
	h := s.pool.Get().(hash.Hash)
	defer s.pool.Put(h)
	h.Reset()
	for _, f := range frames {
		h.Write(f)
	}
	return h.Sum(nil)
}

// verify reports whether sig is the signature of frames, comparing in
// constant time so that timing leaks nothing about the key, and returns it
// decoded (nil without a key).
func (s *Signer) verify(sig []byte, frames [4][]byte) ([]byte, bool) {
	if len(s.key) == 0 {
		return nil, true
	}
	got := make([]byte, hex.DecodedLen(len(sig)))
	if _, err := hex.Decode(got, sig); err != nil {
		return nil, false
	}
	return got, hmac.Equal(got, s.sum(frames))
}

// Decode parses the frames of one message received on a ROUTER socket:
// identities, the delimiter, the signature, four JSON frames and buffers.
// It verifies the signature before it parses any JSON.
func (s *Signer) Decode(frames [][]byte) (*Message, error) {
	i := 0
	for i < len(frames) && string(frames[i]) != delimiter {
		i++
	}
	if i == len(frames) {
		return nil, fmt.Errorf("%w: no %s delimiter in %d frames", ErrMalformed, delimiter, len(frames))
	}
	if len(frames) < i+6 {
		return nil, fmt.Errorf("%w: %d frames after the delimiter, want at least 5", ErrMalformed, len(frames)-i-1)
	}
	var signed [4][]byte
	copy(signed[:], frames[i+2:i+6])
	mac, ok := s.verify(frames[i+1], signed)
	if !ok {
		return nil, ErrBadSignature
	}
	m := &Message{
		Signature:  mac,
		Identities: frames[:i],
		RawHeader:  signed[0],
		RawParent:  signed[1],
		Content:    signed[3],
		Buffers:    frames[i+6:],
	}
	if err := json.Unmarshal(signed[0], &m.Header); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrMalformed, err)
	}
	if m.Header.MsgType == "" {
		return nil, fmt.Errorf("%w: header has no msg_type (msg_id %q)", ErrMalformed, m.Header.MsgID)
	}
	if err := json.Unmarshal(signed[2], &m.Metadata); err != nil {
		return nil, fmt.Errorf("%w: %s %s: metadata: %v", ErrMalformed, m.Header.MsgType, m.Header.MsgID, err)
	}
	if m.Metadata == nil {
		m.Metadata = map[string]any{}
	}
	if !json.Valid(m.RawParent) {
		return nil, fmt.Errorf("%w: %s %s: parent_header is not JSON", ErrMalformed, m.Header.MsgType, m.Header.MsgID)
	}
	if !json.Valid(m.Content) {
		return nil, fmt.Errorf("%w: %s %s: content is not JSON", ErrMalformed, m.Header.MsgType, m.Header.MsgID)
	}
	return m, nil
}

// Encode returns the frames of a message: identities, the delimiter, the
// signature, header, parent header, metadata, content and buffers.
func (s *Signer) Encode(identities [][]byte, header Header, parent json.RawMessage, metadata, content any, buffers [][]byte) ([][]byte, error) {
	var signed [4][]byte
	var err error
	if signed[0], err = json.Marshal(header); err != nil {
		return nil, fmt.Errorf("encode %s header: %w", header.MsgType, err)
	}
	signed[1] = parent
	if len(parent) == 0 {
		signed[1] = []byte("{}")
	}
	signed[2] = []byte("{}")
	if metadata != nil {
		if signed[2], err = json.Marshal(metadata); err != nil {
			return nil, fmt.Errorf("encode %s metadata: %w", header.MsgType, err)
		}
	}
	if signed[3], err = json.Marshal(content); err != nil {
		return nil, fmt.Errorf("encode %s content: %w", header.MsgType, err)
	}
	frames := make([][]byte, 0, len(identities)+6+len(buffers))
	frames = append(frames, identities...)
	frames = append(frames, []byte(delimiter), []byte(s.sign(signed)))
	frames = append(frames, signed[:]...)
	return append(frames, buffers...), nil
}

// NewHeader returns a header for a new message of type msgType in session.
func NewHeader(msgType, session string) Header {
	return Header{
		MsgID:    newID(),
		Session:  session,
		Username: "pathnotes",
		Date:     time.Now().UTC().Format("2006-01-02T15:04:05.000000Z"),
		MsgType:  msgType,
		Version:  ProtocolVersion,
	}
}

// newID returns a random version-4 UUID, the form Jupyter uses for message
// and session ids.
func newID() string {
	var b [16]byte
	rand.Read(b[:]) // crypto/rand.Read never fails (it aborts the program instead)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var id [36]byte
	hex.Encode(id[0:8], b[0:4])
	hex.Encode(id[9:13], b[4:6])
	hex.Encode(id[14:18], b[6:8])
	hex.Encode(id[19:23], b[8:10])
	hex.Encode(id[24:36], b[10:16])
	id[8], id[13], id[18], id[23] = '-', '-', '-', '-'
	return string(id[:])
}
