// Package notebook reads, writes and runs Jupyter notebooks (nbformat 4)
// without a Jupyter server: `pathnotes run` executes every code cell of a
// notebook in order through a fresh interpreter session, as nbclient would
// with the pathnotes kernel, and writes the notebook with its outputs.
//
// Reading and writing keep what this package does not interpret: unknown
// fields of the notebook, of cells and of outputs, and all metadata.
package notebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/pathnotes/pathnotes/internal/atomicfile"
)

// Notebook is an nbformat 4 notebook.
type Notebook struct {
	NBFormat      int
	NBFormatMinor int
	Metadata      map[string]any
	Cells         []*Cell
	extra         map[string]json.RawMessage // fields this package does not know
}

// Cell is one cell: code, markdown or raw.
type Cell struct {
	ID             string // nbformat 4.5 cell id; empty in older notebooks
	CellType       string // "code", "markdown" or "raw"
	Source         string
	Metadata       map[string]any
	ExecutionCount *int      // code cells: nil until run
	Outputs        []*Output // code cells
	extra          map[string]json.RawMessage
}

// Output is one output of a code cell, in nbformat's shapes.
type Output struct {
	OutputType string // "stream", "display_data", "execute_result" or "error"

	Name string // stream: "stdout" or "stderr"
	Text string // stream

	Data           map[string]any // display_data, execute_result: MIME type → content
	Metadata       map[string]any // display_data, execute_result
	ExecutionCount *int           // execute_result

	EName     string   // error
	EValue    string   // error
	Traceback []string // error

	// DisplayID is the display_id an update_display_data may replace; it is
	// kept in memory while the notebook runs and not written (nbformat
	// stores it nowhere).
	DisplayID string

	extra map[string]json.RawMessage
}

// Tags returns the cell's tags (metadata.tags).
func (c *Cell) Tags() []string {
	raw, _ := c.Metadata["tags"].([]any)
	var tags []string
	for _, t := range raw {
		if s, ok := t.(string); ok {
			tags = append(tags, s)
		}
	}
	return tags
}

// HasTag reports whether the cell has tag.
func (c *Cell) HasTag(tag string) bool {
	for _, t := range c.Tags() {
		if t == tag {
			return true
		}
	}
	return false
}

// Read reads a notebook file.
func Read(path string) (*Notebook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	nb, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return nb, nil
}

// Parse decodes a notebook. Only nbformat 4 is accepted, and cells of at
// most MaxCellSource bytes of source.
func Parse(b []byte) (*Notebook, error) {
	if err := checkSources(b); err != nil {
		return nil, err
	}
	var nb Notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, err
	}
	return &nb, nil
}

// Write writes the notebook to path as nbformat writes notebooks: keys
// sorted, one-space indentation, multi-line strings as lists of lines. An
// existing file is replaced atomically and keeps its permissions: when the
// write fails (disk full, file too large) it is left as it was.
func (nb *Notebook) Write(path string) error {
	b, err := nb.Marshal()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b, 0o644)
}

// Marshal encodes the notebook as Write writes it. In an nbformat 4.5 or
// later notebook, cells without an id get one (nbformat requires them), made
// from the cell's position so that rewriting a notebook keeps its ids.
func (nb *Notebook) Marshal() ([]byte, error) {
	nb.fillIDs()
	b, err := marshal(nb)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", " "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// fillIDs gives every cell without an id a unique one, in notebooks whose
// format has cell ids (4.5 and later).
func (nb *Notebook) fillIDs() {
	if nb.NBFormat != 4 || nb.NBFormatMinor < 5 {
		return
	}
	used := map[string]bool{}
	for _, c := range nb.Cells {
		used[c.ID] = true
	}
	for i, c := range nb.Cells {
		if c.ID != "" {
			continue
		}
		id := fmt.Sprintf("cell-%d", i+1)
		for k := 2; used[id]; k++ {
			id = fmt.Sprintf("cell-%d-%d", i+1, k)
		}
		c.ID, used[id] = id, true
	}
}

// fields decodes a JSON object into raw fields.
func fields(b []byte, what string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if m == nil {
		return nil, fmt.Errorf("%s: not a JSON object", what)
	}
	return m, nil
}

// take decodes and removes field key of m into v, if present.
func take(m map[string]json.RawMessage, key string, v any, what string) error {
	raw, ok := m[key]
	if !ok {
		return nil
	}
	delete(m, key)
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: field %q: %w", what, key, err)
	}
	return nil
}

// takeText decodes a multi-line string field, a string or a list of lines.
func takeText(m map[string]json.RawMessage, key string, s *string, what string) error {
	var v any
	if err := take(m, key, &v, what); err != nil {
		return err
	}
	text, err := joinLines(v)
	if err != nil {
		return fmt.Errorf("%s: field %q: %w", what, key, err)
	}
	*s = text
	return nil
}

// joinLines turns nbformat's multi-line string (a string or a list of
// strings) into one string.
func joinLines(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case []any:
		var b strings.Builder
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return "", fmt.Errorf("a list of lines holds a %T", x)
			}
			b.WriteString(s)
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("a multi-line string is a %T", v)
}

// withExtra marshals known fields merged with the unknown ones.
func withExtra(known map[string]any, extra map[string]json.RawMessage) ([]byte, error) {
	out := map[string]any{}
	for k, v := range extra {
		out[k] = v
	}
	for k, v := range known {
		out[k] = v
	}
	return marshal(out)
}

// marshal encodes v as JSON without escaping <, > and &, which notebooks
// hold a lot of (HTML, SVG) and nbformat writes as they are.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (nb *Notebook) UnmarshalJSON(b []byte) error {
	m, err := fields(b, "notebook")
	if err != nil {
		return err
	}
	if err := take(m, "nbformat", &nb.NBFormat, "notebook"); err != nil {
		return err
	}
	if nb.NBFormat != 4 {
		return fmt.Errorf("notebook: nbformat %d, only 4 is supported", nb.NBFormat)
	}
	if err := take(m, "nbformat_minor", &nb.NBFormatMinor, "notebook"); err != nil {
		return err
	}
	if err := take(m, "metadata", &nb.Metadata, "notebook"); err != nil {
		return err
	}
	var cells []json.RawMessage
	if err := take(m, "cells", &cells, "notebook"); err != nil {
		return err
	}
	nb.Cells = make([]*Cell, len(cells))
	for i, raw := range cells {
		nb.Cells[i] = new(Cell)
		if err := json.Unmarshal(raw, nb.Cells[i]); err != nil {
			return fmt.Errorf("notebook: cell %d: %w", i+1, err)
		}
	}
	nb.extra = m
	return nil
}

// MaxCellSource is the most bytes of source (as the file holds it, in
// JSON) a cell may have: Read refuses a notebook with a larger one before
// decoding it, since a session would then need many times that memory to
// run the cell. The kernel runs cells of tens of megabytes (its tests send
// 20 MB).
const MaxCellSource = 64 << 20

// SourceError is a cell whose source is larger than MaxCellSource.
type SourceError struct {
	Cell  int // 1 for the first cell
	Bytes int // the size of its source's strings in the file, at least
}

func (e *SourceError) Error() string {
	return fmt.Sprintf("notebook: cell %d: its source takes %s in the file, more than the %s a cell may hold (notebook.MaxCellSource): split the cell or read the data from a file",
		e.Cell, formatBytes(e.Bytes), formatBytes(MaxCellSource))
}

// checkSources measures the source of each cell in the JSON of a notebook
// without decoding it, in one pass that allocates nothing, and returns a
// SourceError for the first cell whose source is larger than MaxCellSource:
// decoding takes several passes and copies over each field, which a cell
// of a gigabyte makes slow and large. It knows the shape of a notebook only
// (cells in the top-level "cells", each source a string or a list of
// strings); JSON it cannot follow is left to the decoder.
func checkSources(b []byte) error {
	depth := 0
	var key1, key3 []byte // the latest key of the notebook object and of a cell
	inCells, cell, size := false, 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			end := stringEnd(b, i)
			j := end + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
				j++
			}
			switch {
			case j < len(b) && b[j] == ':': // a key
				if depth == 1 {
					key1 = b[i+1 : end]
				} else if depth == 3 && inCells {
					key3, size = b[i+1:end], 0
				}
			case inCells && (depth == 3 || depth == 4) && string(key3) == "source":
				if size += end - i - 1; size > MaxCellSource {
					return &SourceError{Cell: cell, Bytes: size}
				}
			}
			i = end
		case '{', '[':
			depth++
			if depth == 2 && b[i] == '[' && string(key1) == "cells" {
				inCells, cell = true, 0
			} else if depth == 3 && inCells && b[i] == '{' {
				cell++
				key3 = nil
			}
		case '}', ']':
			if depth == 2 {
				inCells = false
			}
			depth--
		}
	}
	return nil
}

// stringEnd returns the index of the quote that ends the JSON string
// starting at b[start], or len(b) when it does not end.
func stringEnd(b []byte, start int) int {
	for i := start + 1; i < len(b); {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return len(b)
		}
		q := i + k
		escapes := 0
		for p := q - 1; p > start && b[p] == '\\'; p-- {
			escapes++
		}
		if escapes%2 == 0 {
			return q
		}
		i = q + 1
	}
	return len(b)
}

// formatBytes formats a size in MiB or GiB.
func formatBytes(n int) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// MarshalJSON implements json.Marshaler.
func (nb *Notebook) MarshalJSON() ([]byte, error) {
	md := nb.Metadata
	if md == nil {
		md = map[string]any{}
	}
	cells := nb.Cells
	if cells == nil {
		cells = []*Cell{}
	}
	return withExtra(map[string]any{
		"nbformat": nb.NBFormat, "nbformat_minor": nb.NBFormatMinor, "metadata": md, "cells": cells,
	}, nb.extra)
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *Cell) UnmarshalJSON(b []byte) error {
	m, err := fields(b, "cell")
	if err != nil {
		return err
	}
	for _, f := range []struct {
		key string
		v   any
	}{{"id", &c.ID}, {"cell_type", &c.CellType}, {"metadata", &c.Metadata}, {"execution_count", &c.ExecutionCount}, {"outputs", &c.Outputs}} {
		if err := take(m, f.key, f.v, "cell"); err != nil {
			return err
		}
	}
	if err := takeText(m, "source", &c.Source, "cell"); err != nil {
		return err
	}
	switch c.CellType {
	case "code", "markdown", "raw":
	default:
		return fmt.Errorf("cell: unknown cell_type %q", c.CellType)
	}
	c.extra = m
	return nil
}

// MarshalJSON implements json.Marshaler.
func (c *Cell) MarshalJSON() ([]byte, error) {
	md := c.Metadata
	if md == nil {
		md = map[string]any{}
	}
	known := map[string]any{"cell_type": c.CellType, "metadata": md, "source": lines(c.Source)}
	if c.ID != "" {
		known["id"] = c.ID
	}
	if c.CellType == "code" {
		outs := c.Outputs
		if outs == nil {
			outs = []*Output{}
		}
		known["outputs"] = outs
		known["execution_count"] = c.ExecutionCount
	}
	return withExtra(known, c.extra)
}

// UnmarshalJSON implements json.Unmarshaler.
func (o *Output) UnmarshalJSON(b []byte) error {
	m, err := fields(b, "output")
	if err != nil {
		return err
	}
	if err := take(m, "output_type", &o.OutputType, "output"); err != nil {
		return err
	}
	what := o.OutputType + " output"
	switch o.OutputType {
	case "stream":
		if err := take(m, "name", &o.Name, what); err != nil {
			return err
		}
		if err := takeText(m, "text", &o.Text, what); err != nil {
			return err
		}
	case "display_data", "execute_result":
		var data map[string]any
		if err := take(m, "data", &data, what); err != nil {
			return err
		}
		o.Data = map[string]any{}
		for k, v := range data {
			if isJSONType(k) {
				o.Data[k] = v
				continue
			}
			text, err := joinLines(v)
			if err != nil {
				return fmt.Errorf("%s: data %q: %w", what, k, err)
			}
			o.Data[k] = text
		}
		if err := take(m, "metadata", &o.Metadata, what); err != nil {
			return err
		}
		if o.OutputType == "execute_result" {
			if err := take(m, "execution_count", &o.ExecutionCount, what); err != nil {
				return err
			}
		}
	case "error":
		for _, f := range []struct {
			key string
			v   any
		}{{"ename", &o.EName}, {"evalue", &o.EValue}, {"traceback", &o.Traceback}} {
			if err := take(m, f.key, f.v, what); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("output: unknown output_type %q", o.OutputType)
	}
	o.extra = m
	return nil
}

// MarshalJSON implements json.Marshaler.
func (o *Output) MarshalJSON() ([]byte, error) {
	known := map[string]any{"output_type": o.OutputType}
	switch o.OutputType {
	case "stream":
		known["name"] = o.Name
		known["text"] = lines(o.Text)
	case "display_data", "execute_result":
		data := map[string]any{}
		for k, v := range o.Data {
			if s, ok := v.(string); ok && !isJSONType(k) {
				data[k] = lines(s)
			} else {
				data[k] = v
			}
		}
		md := o.Metadata
		if md == nil {
			md = map[string]any{}
		}
		known["data"], known["metadata"] = data, md
		if o.OutputType == "execute_result" {
			known["execution_count"] = o.ExecutionCount
		}
	case "error":
		tb := o.Traceback
		if tb == nil {
			tb = []string{}
		}
		known["ename"], known["evalue"], known["traceback"] = o.EName, o.EValue, tb
	}
	return withExtra(known, o.extra)
}

// isJSONType reports whether a MIME type holds JSON rather than text:
// application/json and the application/...+json types.
func isJSONType(mime string) bool {
	return mime == "application/json" || strings.HasPrefix(mime, "application/") && strings.HasSuffix(mime, "+json")
}

// lines returns s as nbformat writes multi-line strings: a list of lines.
func lines(s string) []string {
	if s == "" {
		return []string{}
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
