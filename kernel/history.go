package kernel

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// HistoryEnv names the environment variable that, when set, is the history
// file; tests point it at a temporary file.
const HistoryEnv = "PATHNOTES_HISTORY"

// maxHistoryOutput bounds the output text kept per history line: history is
// for finding code again, and a cell that prints megabytes must not make the
// file (read whole at every start) grow by as much.
const maxHistoryOutput = 4096

// maxHistoryEntries bounds the entries kept in memory; older lines stay in
// the file but are no longer searched.
const maxHistoryEntries = 100000

// DefaultHistoryPath returns the history file: $PATHNOTES_HISTORY if set,
// else pathnotes/history.jsonl in the user's data directory
// ($XDG_DATA_HOME, or ~/.local/share).
func DefaultHistoryPath() (string, error) {
	if p := os.Getenv(HistoryEnv); p != "" {
		return p, nil
	}
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("history: no data directory: %w", err)
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "pathnotes", "history.jsonl"), nil
}

// HistoryEntry is one executed cell: the kernel run (session, counted from 1
// across restarts), its execution count (line), the code and the text of its
// result, if it had one.
type HistoryEntry struct {
	Session int     `json:"session"`
	Line    int     `json:"line"`
	Source  string  `json:"source,omitempty"`
	Output  *string `json:"output,omitempty"`
}

// History is the input history of the kernel, kept in a JSON-lines file so
// that it survives restarts (one record per line: the source when a cell
// starts, its output when it ends). The file is only ever appended to, never
// rewritten, so a failed write can cost at most the record being written. A
// History with no file keeps memory only. It is safe for concurrent use.
type History struct {
	mu      sync.Mutex
	file    *os.File
	path    string
	torn    bool // the file ends in part of a record: start the next on a new line
	session int
	entries []HistoryEntry
	index   map[[2]int]int // (session, line) → position in entries

	// The records of earlier sessions are the file's bytes from pastStart
	// to pastEnd (its size at open), loaded into entries on first use.
	pastStart, pastEnd int64
	pastLoaded         bool
}

// OpenHistory opens the history file at path (creating it and its directory
// if needed) and starts a new session numbered one past the last one in the
// file. An empty path keeps the history in memory only. Lines of the file
// that do not parse are skipped and reported in the returned warnings.
//
// Only the last historyWindow bytes of the file are read, and at open only
// for their session numbers: the records themselves are parsed when the
// history is first asked for (Tail, Range, Search), so a file grown over
// years neither slows the kernel's start nor stays in its memory.
func OpenHistory(path string) (h *History, warnings []error, err error) {
	h = &History{session: 1, index: map[[2]int]int{}, pastLoaded: true}
	if path == "" {
		return h, nil, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	h.path, h.pastEnd = path, st.Size()
	h.pastStart = max(0, h.pastEnd-historyWindow)
	last, warnings, err := h.scanPast(f)
	if err != nil {
		f.Close()
		return nil, warnings, fmt.Errorf("history: reading %s: %w", path, err)
	}
	if h.torn, err = endsTorn(f); err != nil {
		f.Close()
		return nil, warnings, fmt.Errorf("history: reading %s: %w", path, err)
	}
	h.file = f
	h.session = last + 1
	h.pastLoaded = h.pastEnd == 0
	return h, warnings, nil
}

// merge adds e or, for a record of a line already known, fills in its output.
func (h *History) merge(e HistoryEntry) {
	key := [2]int{e.Session, e.Line}
	if i, ok := h.index[key]; ok {
		if e.Output != nil {
			h.entries[i].Output = e.Output
		}
		if e.Source != "" {
			h.entries[i].Source = e.Source
		}
		return
	}
	h.index[key] = len(h.entries)
	h.entries = append(h.entries, e)
}

func (h *History) reindex() {
	clear(h.index)
	for i, e := range h.entries {
		h.index[[2]int{e.Session, e.Line}] = i
	}
}

// Session returns the number of this kernel run's history session.
func (h *History) Session() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.session
}

// AddInput records the source of line (an execution count) of this session.
// It is written before the cell runs, so that a cell that kills the kernel
// is still in the history of the next one.
func (h *History) AddInput(line int, source string) error {
	return h.add(HistoryEntry{Line: line, Source: source})
}

// AddOutput records the text of line's result.
func (h *History) AddOutput(line int, output string) error {
	if len(output) > maxHistoryOutput {
		output = truncateUTF8(output, maxHistoryOutput) + "…"
	}
	return h.add(HistoryEntry{Line: line, Output: &output})
}

func (h *History) add(e HistoryEntry) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	e.Session = h.session
	h.merge(e)
	if len(h.entries) > 2*maxHistoryEntries {
		h.entries = append([]HistoryEntry(nil), h.entries[len(h.entries)-maxHistoryEntries:]...)
		h.reindex()
	}
	if h.file == nil {
		return nil
	}
	data, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	// One write per record: with O_APPEND, records of kernels sharing the
	// file do not interleave. After a record cut short (a full disk, a
	// killed kernel), a newline first keeps that fragment from swallowing
	// this record.
	rec := append(data, '\n')
	if h.torn {
		rec = append([]byte{'\n'}, rec...)
	}
	n, err := h.file.Write(rec)
	h.torn = err != nil && n > 0
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// endsTorn reports whether f is non-empty and does not end in a newline.
func endsTorn(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false, err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, st.Size()-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
}

// Close closes the history file.
func (h *History) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.file == nil {
		return nil
	}
	err := h.file.Close()
	h.file = nil
	return err
}

// Tail returns the last n entries of all sessions (all of them if n <= 0).
func (h *History) Tail(n int) []HistoryEntry {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.loadPast()
	return lastN(h.entries, n)
}

// Range returns lines start <= line < stop of a session; stop <= 0 means to
// the end. A session of 0 is this kernel's, a negative one counts back from
// it (-1 is the previous run), as in IPython.
func (h *History) Range(session, start, stop int) []HistoryEntry {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.loadPast()
	if session <= 0 {
		session += h.session
	}
	var out []HistoryEntry
	for _, e := range h.entries {
		if e.Session == session && e.Line >= start && (stop <= 0 || e.Line < stop) {
			out = append(out, e)
		}
	}
	return out
}

// Search returns the entries whose source matches the glob pattern (* any
// text, ? one character, [abc] [^abc] [a-z] one of a set, as SQLite's GLOB
// which IPython uses; an empty pattern matches everything), oldest first. With
// unique, only the latest entry of each distinct source is kept. n > 0 keeps
// the last n.
func (h *History) Search(pattern string, n int, unique bool) ([]HistoryEntry, error) {
	re, err := globRegexp(pattern)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.loadPast()
	var out []HistoryEntry
	seen := map[string]bool{}
	for i := len(h.entries) - 1; i >= 0; i-- {
		e := h.entries[i]
		if !re.MatchString(e.Source) || unique && seen[e.Source] {
			continue
		}
		seen[e.Source] = true
		out = append(out, e)
		if n > 0 && len(out) == n {
			break
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

func lastN(entries []HistoryEntry, n int) []HistoryEntry {
	if n > 0 && n < len(entries) {
		entries = entries[len(entries)-n:]
	}
	return append([]HistoryEntry(nil), entries...)
}

// globRegexp translates a glob into an anchored regular expression.
func globRegexp(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		pattern = "*"
	}
	var b strings.Builder
	b.WriteString(`(?s)^`)
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := i + 1
			if j < len(rs) && rs[j] == '^' {
				j++
			}
			if j < len(rs) && rs[j] == ']' { // a leading ] is a member
				j++
			}
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("history search: pattern %q: [ at offset %d has no closing ]", pattern, i)
			}
			b.WriteByte('[')
			for k, m := range rs[i+1 : j] {
				switch {
				case k == 0 && m == '^':
					b.WriteRune('^')
				case m == '\\' || m == '[' || m == ']' || m == '^':
					b.WriteRune('\\')
					b.WriteRune(m)
				default:
					b.WriteRune(m)
				}
			}
			b.WriteByte(']')
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteByte('$')
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("history search: pattern %q: %w", pattern, err)
	}
	return re, nil
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
