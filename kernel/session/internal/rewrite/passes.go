package rewrite

import "strings"

// Stage is the point of a piece's way to the interpreter at which a pass
// runs.
type Stage int

const (
	// Parsed: right after the piece is parsed, before anything else reads it.
	Parsed Stage = iota
	// Declarations: before the declarations of a piece are compiled, once
	// the session has taken out the var declarations of existing variables.
	Declarations
	// Compile: just before the interpreter compiles the piece, with the
	// session's own instrumentation.
	Compile
)

// Pass is one entry of the registry: a gap of the interpreter and what the
// session does about it.
type Pass struct {
	Name  string // short and stable, e.g. "ranges"
	Gap   string // what yaegi 0.16.1 lacks or gets wrong, in a line
	Stage Stage
	// Run rewrites the piece; nil for a gap that only has a hint. It
	// returns an error for code the pass recognises but cannot rewrite.
	Run func(p *Piece) error
	// Hint, when not nil, returns words to add to the interpreter's message
	// msg when it comes from this gap, or "".
	Hint func(msg string) string
}

// passes is the registry, in the order the passes run within a stage.
var passes = []Pass{
	{Name: "tagless-cases", Stage: Parsed, Run: func(p *Piece) error { joinTaglessCases(p.File); return nil },
		Gap: "a case clause of several expressions in a switch without a tag tests only the first"},
	{Name: "std-generics", Stage: Parsed, Run: renameStd, Hint: stdHint,
		Gap: "the generic functions of slices, maps and cmp, and the types of iter, are missing"},
	{Name: "type-args", Stage: Parsed, Run: inferTypeArgs,
		Gap: "type arguments are inferred from the first argument only"},
	{Name: "generic-results", Stage: Parsed, Run: convertGenericResults,
		Gap: "a global defined by a generic call cannot be typed (constant definition loop, not a generic type)"},
	{Name: "ranges", Stage: Parsed, Run: rewriteRanges, Hint: rangeHint,
		Gap: "range over an integer (Go 1.22) or a function (Go 1.23) is missing"},
	{Name: "late-vars", Stage: Declarations, Run: splitLate,
		Gap: "var b = a + 1, with a from an earlier cell, is a variable definition loop"},
	{Name: "compound-defines", Stage: Compile, Run: wrapCompound,
		Gap: "the second variable of v, err := f() in a block nested in top-level code is lost"},
	{Name: "min-max", Stage: Compile, Run: minMax,
		Gap: "the generic min and max cannot take untyped constants first, nor define a global"},
	{Name: "clear", Hint: clearHint,
		Gap: "the builtin clear is missing"},
}

// Passes returns the registry, in order.
func Passes() []Pass { return append([]Pass(nil), passes...) }

// Run runs the passes of stage on p, in the registry's order, and stops at
// the first error.
func (r *Rewriter) Run(stage Stage, p *Piece) error {
	p.r = r
	for _, ps := range passes {
		if ps.Stage != stage || ps.Run == nil {
			continue
		}
		if err := ps.Run(p); err != nil {
			return err
		}
	}
	return nil
}

// Hint returns the words of the first pass whose gap explains msg, an
// error message of the interpreter, or "".
func Hint(msg string) string {
	for _, ps := range passes {
		if ps.Hint != nil {
			if h := ps.Hint(msg); h != "" {
				return h
			}
		}
	}
	return ""
}

// rangeHint explains yaegi's failure to type a range it cannot run.
func rangeHint(msg string) string {
	if strings.Contains(msg, "nil type") {
		return " (the interpreter could not type this code: yaegi 0.16.1 cannot range over an integer or a function " +
			"(Go 1.22/1.23 features): write for i := 0; i < n; i++ { ... }, or call the iterator function with a yield function)"
	}
	return ""
}

// clearHint says what to write instead of clear.
func clearHint(msg string) string {
	if strings.Contains(msg, "undefined: clear") {
		return " (the builtin clear is not available in the interpreter: use for k := range m { delete(m, k) })"
	}
	return ""
}

// stdHint explains a function of slices or maps that yaegi's own packages
// lack.
func stdHint(msg string) string {
	if strings.Contains(msg, "undefined selector: slices.") || strings.Contains(msg, "undefined selector: maps.") {
		return " (the interpreter (yaegi 0.16.1) lacks most generic functions of packages slices and maps: " +
			"use sort.Ints, sort.Slice or a loop)"
	}
	return ""
}
