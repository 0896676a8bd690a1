package display

import (
	"strings"
	"unicode/utf8"

	stdfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
)

// width is the number of terminal columns s takes, counting one per rune
// (enough for the ∞, Π and Latin labels these tables hold).
func width(s string) int { return utf8.RuneCountInString(s) }

// pad widens s to w columns, on the left when right is true.
func pad(s string, w int, right bool) string {
	gap := w - width(s)
	if gap <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", gap) + s
	}
	return s + strings.Repeat(" ", gap)
}

// alignTable lays out header and rows as text columns separated by two
// spaces, right-aligning the columns whose right flag is set. Rows shorter
// than the header are padded with empty cells.
func alignTable(header []string, rows [][]string, right []bool) string {
	widths := make([]int, len(header))
	for c, h := range header {
		widths[c] = width(h)
	}
	for _, row := range rows {
		for c := 0; c < len(row) && c < len(widths); c++ {
			widths[c] = max(widths[c], width(row[c]))
		}
	}
	var sb strings.Builder
	line := func(cells []string) {
		var parts []string
		for c := range widths {
			cell := ""
			if c < len(cells) {
				cell = cells[c]
			}
			parts = append(parts, pad(cell, widths[c], c < len(right) && right[c]))
		}
		sb.WriteString(strings.TrimRight(strings.Join(parts, "  "), " "))
		sb.WriteString("\n")
	}
	line(header)
	for _, row := range rows {
		line(row)
	}
	return sb.String()
}

// besideText puts text blocks next to each other, each padded to its widest
// line, with a gap of four spaces. It returns ok false when the result would
// be wider than maxWidth columns, so that callers can stack them instead.
func besideText(blocks []string, maxWidth int) (string, bool) {
	split := make([][]string, len(blocks))
	widths := make([]int, len(blocks))
	height, total := 0, 0
	for i, b := range blocks {
		split[i] = strings.Split(strings.TrimRight(b, "\n"), "\n")
		for _, l := range split[i] {
			widths[i] = max(widths[i], width(l))
		}
		height = max(height, len(split[i]))
		total += widths[i] + 4
	}
	if total-4 > maxWidth {
		return "", false
	}
	var sb strings.Builder
	for r := 0; r < height; r++ {
		var parts []string
		for i, lines := range split {
			l := ""
			if r < len(lines) {
				l = lines[r]
			}
			parts = append(parts, pad(l, widths[i], false))
		}
		sb.WriteString(strings.TrimRight(strings.Join(parts, "    "), " "))
		sb.WriteString("\n")
	}
	return sb.String(), true
}

// svgFontScale is how much wider than Liberation Sans, whose metrics
// gonum has, the fonts that the SVG drawings name may draw a text
// (DejaVu Sans, the widest of them, and its bold most of all).
const svgFontScale = 1.25

// svgTextWidth is the width in pixels of s in a drawing's sans-serif font
// of the given size, by Liberation Sans's metrics widened by svgFontScale.
func svgTextWidth(s string, size float64, bold bool) float64 {
	f := font.Font{Typeface: "Liberation", Variant: "Sans"}
	if bold {
		f.Weight = stdfont.WeightBold
	}
	sty := text.Style{Font: font.From(f, font.Length(size)), Handler: plot.DefaultTextHandler}
	return svgFontScale * sty.Width(s).Points()
}

// wrapSVGText breaks s at spaces into lines no wider than width pixels in
// a drawing's font of the given size; a word wider than that stands alone.
func wrapSVGText(s string, size float64, bold bool, width float64) []string {
	return wrapText(s, func(s string) float64 { return svgTextWidth(s, size, bold) }, width)
}

// wrapText breaks s at spaces into lines no wider than width by measure; a
// word wider than that stands on a line of its own.
func wrapText(s string, measure func(string) float64, width float64) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case measure(line+" "+word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
