package graph

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
)

// cancelEvery is how many lines the readers go between looks at their
// context: often enough to stop within milliseconds, rarely enough to cost
// nothing.
const cancelEvery = 1 << 14

// lineScanner yields the non-blank lines of a text file split into fields,
// and formats errors as "NAME:LINE: what".
type lineScanner struct {
	ctx    context.Context
	sc     *bufio.Scanner
	name   string
	line   int // 1-based number of the current line
	fields [][]byte
	err    error       // the error that ended a loop of next
	gz     *gzipReader // the gzip stream read, nil for plain input
}

// scan moves to the next non-blank line; false at the end of the input.
func (s *lineScanner) scan() (bool, error) {
	for s.sc.Scan() {
		s.line++
		if s.line%cancelEvery == 0 {
			if err := s.ctx.Err(); err != nil {
				return false, fmt.Errorf("%s:%d: %w", s.name, s.line, err)
			}
		}
		if s.fields = splitFields(s.fields[:0], s.sc.Bytes()); len(s.fields) > 0 {
			return true, nil
		}
	}
	switch err := s.sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return false, s.errorAt(s.line+1, "line longer than %s", FormatBytes(maxLine))
	case err != nil:
		return false, s.errorAt(s.line+1, "%v", err)
	}
	return false, nil
}

// comment reports whether the current line starts with the byte c.
func (s *lineScanner) comment(c byte) bool { return s.fields[0][0] == c }

// scanData moves to the next non-blank line that is not a comment starting
// with the byte c (0: no comments); false at the end of the input.
func (s *lineScanner) scanData(c byte) (bool, error) {
	for {
		if ok, err := s.scan(); !ok || err != nil {
			return false, err
		}
		if c == 0 || !s.comment(c) {
			return true, nil
		}
	}
}

// next is scanData for loops over a file's lines: false at the end of the
// input or at an error, which it keeps in s.err.
func (s *lineScanner) next(c byte) bool {
	ok, err := s.scanData(c)
	s.err = err
	return ok
}

// need moves to the next data line (see scanData) and fails, saying that
// what is missing, at the end of the input.
func (s *lineScanner) need(c byte, what string) error {
	ok, err := s.scanData(c)
	if err == nil && !ok {
		err = fmt.Errorf("%s: %s", s.name, what)
	}
	return err
}

func (s *lineScanner) errorf(format string, args ...any) error {
	return s.errorAt(s.line, format, args...)
}

func (s *lineScanner) errorAt(line int, format string, args ...any) error {
	if s.gz != nil && s.gz.err != nil { // the line was cut by a damaged stream
		return fmt.Errorf("%s:%d: %w", s.name, line, s.gz.err)
	}
	return fmt.Errorf("%s:%d: %s", s.name, line, fmt.Sprintf(format, args...))
}

// wantFields checks the current line's field count.
func (s *lineScanner) wantFields(want string, counts ...int) error {
	for _, c := range counts {
		if len(s.fields) == c {
			return nil
		}
	}
	return s.errorf("want %s, got %d fields %q", want, len(s.fields), short(bytes.Join(s.fields, []byte{' '})))
}

// int parses field i as a decimal integer; what names it in errors.
func (s *lineScanner) int(i int, what string) (int64, error) {
	x, ok := parseInt(s.fields[i])
	if !ok {
		return 0, s.errorf("%s %q is not an integer", what, short(s.fields[i]))
	}
	return x, nil
}

// count parses field i as a non-negative count.
func (s *lineScanner) count(i int, what string) (int64, error) {
	x, err := s.int(i, what)
	if err == nil && x < 0 {
		err = s.errorf("%s %d is negative", what, x)
	}
	return x, err
}

// counts parses fields i and i+1 as non-negative counts named whatA and
// whatB.
func (s *lineScanner) counts(i int, whatA, whatB string) (a, b int64, err error) {
	if a, err = s.count(i, whatA); err != nil {
		return 0, 0, err
	}
	if b, err = s.count(i+1, whatB); err != nil {
		return 0, 0, err
	}
	return a, b, nil
}

// vertex parses field i as a vertex id numbered from base, checks it
// against n vertices and returns it 0-based.
func (s *lineScanner) vertex(i int, base, n int64) (int, error) {
	x, err := s.int(i, "vertex")
	if err != nil {
		return 0, err
	}
	if x < base || x-base >= n {
		if n == 0 {
			return 0, s.errorf("vertex %d out of range: the graph has no vertices", x)
		}
		return 0, s.errorf("vertex %d out of range %d..%d", x, base, n-1+base)
	}
	return int(x - base), nil
}

// ends parses fields i and i+1 as the two ends of an arc, ids counted from
// base.
func (s *lineScanner) ends(i int, base, n int64) (u, v int, err error) {
	if u, err = s.vertex(i, base, n); err != nil {
		return 0, 0, err
	}
	if v, err = s.vertex(i+1, base, n); err != nil {
		return 0, 0, err
	}
	return u, v, nil
}

// arc parses fields i, i+1 and i+2 as an arc "u v w", ids counted from base.
func (s *lineScanner) arc(i int, base, n int64) (u, v int, w int32, err error) {
	if u, v, err = s.ends(i, base, n); err != nil {
		return 0, 0, 0, err
	}
	if w, err = s.weight(i + 2); err != nil {
		return 0, 0, 0, err
	}
	return u, v, w, nil
}

// addArc checks that the current line has fields fields (want describes
// them), parses the arc "u v w" from field i, ids counted from base, and
// adds it to c.
func (s *lineScanner) addArc(c *collector, want string, fields, i int, base, n int64) error {
	if err := s.wantFields(want, fields); err != nil {
		return err
	}
	u, v, w, err := s.arc(i, base, n)
	if err != nil {
		return err
	}
	if err := c.add(u, v, w); err != nil {
		return s.errorf("%v", err)
	}
	return nil
}

// weight parses field i as an integer arc weight within ±MaxDistance.
func (s *lineScanner) weight(i int) (int32, error) {
	x, err := s.int(i, "weight")
	if err != nil {
		return 0, err
	}
	return s.checkWeight(x, s.fields[i])
}

func (s *lineScanner) checkWeight(x int64, field []byte) (int32, error) {
	if x > int64(MaxDistance) || x < -int64(MaxDistance) {
		return 0, s.errorf("weight %s beyond ±%d", short(field), MaxDistance)
	}
	return int32(x), nil
}

// splitFields appends the space- or tab-separated fields of line to dst.
func splitFields(dst [][]byte, line []byte) [][]byte {
	for i := 0; i < len(line); {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if j > i {
			dst = append(dst, line[i:j])
		}
		i = j
	}
	return dst
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// parseInt parses an optionally signed decimal int64 without allocating.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	var x uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if x > (limit-d)/10 {
			return 0, false
		}
		x = x*10 + d
	}
	if neg {
		return -int64(x), true
	}
	return int64(x), true
}

// short quotes at most 40 bytes of a field for an error message.
func short(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
