package kernel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// historyWindow bounds the bytes of the history file a kernel reads: the
// last 4 MiB, tens of thousands of cells. Older records stay in the file.
const historyWindow = 4 << 20

// scanPast reads the records of the file's window, f's bytes from
// h.pastStart to h.pastEnd, for their session numbers only, and returns the
// largest one, with a warning for each line that is not a record. A window
// that starts inside the file starts at its first whole line.
func (h *History) scanPast(f *os.File) (last int, warnings []error, err error) {
	err = h.eachPast(f, func(n int, off int64, line []byte) {
		session, ok := recordSession(line)
		if !ok {
			warnings = append(warnings, fmt.Errorf("%s: not a history record, skipped", h.linePos(n, off)))
			return
		}
		last = max(last, session)
	})
	return last, warnings, err
}

// loadPast parses the records of the file's window into the entries, before
// those of this session, the first time the history is asked for. Lines
// that are not records were reported by OpenHistory and are skipped; if the
// file can no longer be read, only this session's entries are kept. h.mu is
// held.
func (h *History) loadPast() {
	if h.pastLoaded {
		return
	}
	h.pastLoaded = true
	f := h.file
	if f == nil { // closed: read it again by its name
		var err error
		if f, err = os.Open(h.path); err != nil {
			return
		}
		defer f.Close()
	}
	current := h.entries
	h.entries, h.index = nil, map[[2]int]int{}
	h.eachPast(f, func(_ int, _ int64, line []byte) {
		var e HistoryEntry
		if json.Unmarshal(line, &e) == nil && e.Session > 0 && e.Line > 0 {
			h.merge(e)
		}
	})
	for _, e := range current {
		h.merge(e)
	}
	if len(h.entries) > maxHistoryEntries {
		h.entries = append([]HistoryEntry(nil), h.entries[len(h.entries)-maxHistoryEntries:]...)
		h.reindex()
	}
}

// eachPast calls fn with each line of the window, its number n in the
// window and its offset in the file.
func (h *History) eachPast(f *os.File, fn func(n int, off int64, line []byte)) error {
	start := h.pastStart
	if start > 0 {
		// Start after the first newline at or after start-1, so that a
		// window beginning exactly at a record keeps it.
		start--
	}
	r := bufio.NewReaderSize(io.NewSectionReader(f, start, h.pastEnd-start), 64*1024)
	if h.pastStart > 0 {
		for {
			chunk, err := r.ReadSlice('\n')
			start += int64(len(chunk))
			if err == nil {
				break
			}
			if err == io.EOF {
				return nil // no whole line in the window
			}
			if err != bufio.ErrBufferFull {
				return err
			}
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), historyWindow+1)
	off := start
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		fn(n, off, line)
		off += int64(len(line)) + 1
	}
	return sc.Err()
}

// linePos names line n of the window, at offset off of the file: "file:N"
// when the window is the whole file, "file: byte OFF" otherwise.
func (h *History) linePos(n int, off int64) string {
	if h.pastStart > 0 {
		return fmt.Sprintf("%s: byte %d", h.path, off)
	}
	return fmt.Sprintf("%s:%d", h.path, n)
}

// recordSession returns the session of a history record, reading the
// `{"session":S,"line":L,` prefix that History writes without a full JSON
// parse, and parsing lines of another shape whole.
func recordSession(line []byte) (int, bool) {
	if rest, ok := bytes.CutPrefix(line, []byte(`{"session":`)); ok && bytes.HasSuffix(line, []byte("}")) {
		s, rest, ok1 := cutInt(rest)
		if rest, ok2 := bytes.CutPrefix(rest, []byte(`,"line":`)); ok1 && ok2 {
			if l, rest, ok := cutInt(rest); ok && s > 0 && l > 0 && (rest[0] == ',' || rest[0] == '}') {
				return s, true
			}
		}
	}
	var e HistoryEntry
	if err := json.Unmarshal(line, &e); err != nil || e.Session <= 0 || e.Line <= 0 {
		return 0, false
	}
	return e.Session, true
}

// cutInt reads the decimal digits (at most 18) at the start of b, which
// must be followed by something.
func cutInt(b []byte) (int, []byte, bool) {
	n, i := 0, 0
	for ; i < len(b) && i < 18 && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int(b[i]-'0')
	}
	if i == 0 || i == len(b) {
		return 0, b, false
	}
	return n, b[i:], true
}
