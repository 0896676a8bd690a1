package display

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"image/png"
	"strings"
)

// MIME types that display puts into bundles.
const (
	MIMEText     = "text/plain"
	MIMEHTML     = "text/html"
	MIMEMarkdown = "text/markdown"
	MIMELaTeX    = "text/latex"
	MIMESVG      = "image/svg+xml"
	MIMEPNG      = "image/png"
	MIMEJSON     = "application/json"
)

// Renderer is implemented by every value that can show itself in a notebook.
// data maps a MIME type to its content and always holds MIMEText; metadata
// maps a MIME type to hints such as an image's width and height (it may be
// nil). PNG content is base64-encoded, as Jupyter's messages carry it.
//
// The kernel checks a cell's trailing value for a method with this exact
// signature; it does not need to import this package to do so.
type Renderer interface {
	MIMEBundle() (data, metadata map[string]any)
}

// Bundle is a ready-made MIME bundle. Build one with HTML, SVG, PNG,
// Markdown, LaTeX, JSON or Text, or fill the maps yourself (keep a
// "text/plain" entry: front ends without rich output show only that).
type Bundle struct {
	Data     map[string]any
	Metadata map[string]any
}

// MIMEBundle returns the bundle's maps; it makes Bundle a Renderer.
func (b Bundle) MIMEBundle() (data, metadata map[string]any) { return b.Data, b.Metadata }

// String returns the bundle's text/plain form.
func (b Bundle) String() string {
	s, _ := b.Data[MIMEText].(string)
	return s
}

// Text shows s as plain text only.
func Text(s string) Bundle {
	return Bundle{Data: map[string]any{MIMEText: s}}
}

// HTML shows an HTML fragment. Its text/plain form is the fragment with the
// tags stripped, so a console still shows the words.
func HTML(s string) Bundle {
	return Bundle{Data: map[string]any{MIMEHTML: s, MIMEText: stripTags(s)}}
}

// Markdown shows Markdown text; consoles print the source.
func Markdown(s string) Bundle {
	return Bundle{Data: map[string]any{MIMEMarkdown: s, MIMEText: s}}
}

// LaTeX shows a LaTeX formula or fragment, e.g. `$d^{(k)}_{ij}$`; consoles
// print the source.
func LaTeX(s string) Bundle {
	return Bundle{Data: map[string]any{MIMELaTeX: s, MIMEText: s}}
}

// SVG shows an SVG document. Its text/plain form names the image and its
// size as the root element declares it.
func SVG(s string) Bundle {
	// The bundle also carries the image as HTML (see svgBundle), so that it
	// shows in untrusted notebooks and in nbconvert's HTML too.
	return svgBundle(s, "SVG image"+svgSize(s))
}

// svgBundle shows the SVG document s, with text as its text/plain form and
// the same document as an <img> in text/html.
//
// The HTML copy is there because sanitizers treat the two types
// differently. nbconvert 6.5 passes image/svg+xml through an HTML cleaner
// that drops every SVG element (the picture vanishes from the exported
// page), and classic Notebook and JupyterLab do not show image/svg+xml in
// an untrusted notebook (one executed elsewhere, for example by
// "pathnotes run"); all of them keep an <img> whose source is a data URI.
// Front ends prefer text/html to SVG, so trusted ones show the image too:
// JupyterLab and VS Code draw SVG as such an image anyway, and classic
// Notebook loses only the hover titles of arcs and vertices. The SVG stays
// in the bundle for exports that use it (Markdown, LaTeX/PDF) and for
// programs that read the notebook.
func svgBundle(s, text string) Bundle {
	return Bundle{Data: map[string]any{MIMESVG: s, MIMEHTML: svgImage(s, text), MIMEText: text}}
}

// svgImage writes an <img> element that shows the SVG document s, with alt
// as the text a reader sees where the image cannot be drawn. The data URI
// is base64: a plain one would need every '#' of the colours escaped, and
// some sanitizers' URI parsers stumble on the rest.
func svgImage(s, alt string) string {
	return `<img src="data:image/svg+xml;base64,` + base64.StdEncoding.EncodeToString([]byte(s)) +
		`" alt="` + html.EscapeString(alt) + `">`
}

// PNG shows PNG-encoded image bytes, with their width and height as
// metadata. Bytes that are not a PNG give a bundle whose text says so, so
// that a bad image shows as a message rather than as a broken picture.
func PNG(b []byte) Bundle {
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return errorBundle(fmt.Errorf("display: PNG: %d bytes are not a PNG image: %w", len(b), err))
	}
	return Bundle{
		Data: map[string]any{
			MIMEPNG:  base64.StdEncoding.EncodeToString(b),
			MIMEText: fmt.Sprintf("PNG image %d×%d", cfg.Width, cfg.Height),
		},
		Metadata: map[string]any{MIMEPNG: map[string]any{"width": cfg.Width, "height": cfg.Height}},
	}
}

// JSON shows v as a JSON tree (front ends that support application/json
// render it collapsible); consoles print it indented. A value that
// encoding/json cannot marshal gives a bundle whose text names the problem.
func JSON(v any) Bundle {
	raw, err := json.Marshal(v)
	if err != nil {
		return errorBundle(fmt.Errorf("display: JSON: cannot encode %T: %w", v, err))
	}
	// Round-trip through a generic value so that the bundle holds only
	// maps, slices and scalars, whatever the publisher does with it.
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return errorBundle(fmt.Errorf("display: JSON: %T encodes to invalid JSON: %w", v, err))
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, raw, "", "  "); err != nil {
		return errorBundle(fmt.Errorf("display: JSON: indenting %T: %w", v, err))
	}
	return Bundle{Data: map[string]any{MIMEJSON: tree, MIMEText: indented.String()}}
}

// note shows s as a small grey remark under other views (a plain Text in a
// Group would be a <pre> block in the group's largest type) and as itself
// in text.
func note(s string) Bundle {
	return Bundle{Data: map[string]any{MIMEHTML: `<div style="` + noteStyle + `">` + html.EscapeString(s) + `</div>`, MIMEText: s}}
}

// errorBundle shows err in red where HTML is rendered and as text elsewhere.
func errorBundle(err error) Bundle {
	msg := err.Error()
	return Bundle{Data: map[string]any{
		MIMEText: "error: " + msg,
		MIMEHTML: `<pre style="color:#b00020">error: ` + html.EscapeString(msg) + `</pre>`,
	}}
}

// svgSize returns " W×H" from the root element's width and height
// attributes, or "" when the document does not declare them.
func svgSize(s string) string {
	dec := xml.NewDecoder(strings.NewReader(s))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if start, ok := tok.(xml.StartElement); ok {
			var w, h string
			for _, a := range start.Attr {
				switch a.Name.Local {
				case "width":
					w = a.Value
				case "height":
					h = a.Value
				}
			}
			if w == "" || h == "" {
				return ""
			}
			return " " + w + "×" + h
		}
	}
}

// blockTags end a line when HTML is flattened to text.
var blockTags = map[string]bool{
	"br": true, "p": true, "div": true, "tr": true, "li": true, "table": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "pre": true, "caption": true,
}

// stripTags flattens an HTML fragment to readable text: tags go, block
// elements end lines, table cells are separated by a space, entities are
// decoded, and style and script bodies are dropped.
func stripTags(s string) string {
	var out strings.Builder
	skip := "" // closing tag that ends a dropped element
	for len(s) > 0 {
		lt := strings.IndexByte(s, '<')
		if lt < 0 {
			if skip == "" {
				out.WriteString(s)
			}
			break
		}
		if skip == "" {
			out.WriteString(s[:lt])
		}
		gt := strings.IndexByte(s[lt:], '>')
		if gt < 0 {
			break
		}
		tag := strings.ToLower(strings.TrimSpace(s[lt+1 : lt+gt]))
		s = s[lt+gt+1:]
		closing := strings.HasPrefix(tag, "/")
		name, _, _ := strings.Cut(strings.TrimPrefix(tag, "/"), " ")
		name = strings.TrimSuffix(name, "/")
		switch {
		case skip != "":
			if closing && name == skip {
				skip = ""
			}
		case !closing && (name == "style" || name == "script"):
			skip = name
		case blockTags[name] && (closing || name == "br"):
			out.WriteString("\n")
		case closing && (name == "td" || name == "th"):
			out.WriteString(" ")
		}
	}
	lines := strings.Split(html.UnescapeString(out.String()), "\n")
	kept := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}
