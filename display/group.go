package display

import (
	"errors"
	"fmt"
	"html"
	"strings"
)

// Group shows several views together: side by side (Row) or one below the
// other (Column). A distance matrix next to its predecessor matrix, or a
// graph next to its matrix, reads the way the documents print them.
type Group struct {
	items    []Renderer
	vertical bool
	title    string
}

// Row shows items side by side, wrapping when the page is too narrow. In
// text, items stand side by side while that fits in 160 columns.
func Row(items ...Renderer) *Group { return &Group{items: items} }

// Column shows items one below the other.
func Column(items ...Renderer) *Group { return &Group{items: items, vertical: true} }

// Title sets a heading shown above the group.
func (g *Group) Title(s string) *Group { g.title = s; return g }

// Err returns the first error of the group's views, if any.
func (g *Group) Err() error {
	var errs []error
	for _, it := range g.items {
		if e, ok := it.(errer); ok && e.Err() != nil {
			errs = append(errs, e.Err())
		}
	}
	return errors.Join(errs...)
}

// MIMEBundle returns HTML with each view's richest form and the views' text.
func (g *Group) MIMEBundle() (data, metadata map[string]any) {
	var texts, parts []string
	for i, it := range g.items {
		if it == nil {
			return errorBundle(fmt.Errorf("display: group item %d is nil", i)).MIMEBundle()
		}
		d, _ := it.MIMEBundle()
		t, _ := d[MIMEText].(string)
		texts = append(texts, t)
		parts = append(parts, `<div style="margin:0 16px 8px 0">`+richHTML(d)+`</div>`)
	}
	dir := "row;flex-wrap:wrap"
	if g.vertical {
		dir = "column"
	}
	var h strings.Builder
	if g.title != "" {
		h.WriteString(`<div style="font-weight:bold;margin-bottom:4px">` + html.EscapeString(g.title) + `</div>`)
	}
	h.WriteString(`<div style="display:flex;flex-direction:` + dir + `;align-items:flex-start">`)
	h.WriteString(strings.Join(parts, ""))
	h.WriteString(`</div>`)

	text, ok := "", false
	if !g.vertical {
		text, ok = besideText(texts, 160)
	}
	if !ok {
		text = strings.Join(texts, "\n")
	}
	if g.title != "" {
		text = g.title + "\n" + text
	}
	return map[string]any{MIMEHTML: h.String(), MIMEText: strings.TrimRight(text, "\n")}, nil
}

// richHTML returns the best HTML form of a bundle's data: its HTML, its SVG
// or PNG as an embedded image, or its text in a <pre> block. SVG goes in as
// an image rather than inline for the reason svgBundle gives.
func richHTML(data map[string]any) string {
	if s, ok := data[MIMEHTML].(string); ok {
		return s
	}
	if s, ok := data[MIMESVG].(string); ok {
		t, _ := data[MIMEText].(string)
		return svgImage(s, t)
	}
	if s, ok := data[MIMEPNG].(string); ok {
		return `<img src="data:image/png;base64,` + s + `">`
	}
	t, _ := data[MIMEText].(string)
	return `<pre>` + html.EscapeString(t) + `</pre>`
}
