package gpu

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// The cell API checks launch arguments against the kernel's .param list
// and gives module variables an element type. Both drivers load the same
// PTX text, so one reader of its declarations serves them both: it reads
// only the module-scope declarations (.entry signatures, .global and .const
// variables), not the instructions.

// ptxParam is one kernel parameter: its name, PTX type ("u32", "f32",
// "b8" for an aggregate) and size in bytes.
type ptxParam struct {
	Name string
	Type string
	Size int
}

// String formats the parameter as PTX writes it, e.g. ".u32 n".
func (p ptxParam) String() string {
	if p.Type == "b8" && p.Size != 1 {
		return fmt.Sprintf(".b8 %s[%d]", p.Name, p.Size)
	}
	return "." + p.Type + " " + p.Name
}

// ptxEntry is a kernel's signature.
type ptxEntry struct {
	Name   string
	Params []ptxParam
	Line   int
}

// ptxVar is a module-scope .global or .const variable.
type ptxVar struct {
	Name  string
	Space string // "global" or "const"
	Type  string // element type without the dot
	Count int    // elements (1 for a scalar)
	Align int
	Line  int
}

// ptxDecls are the declarations of a PTX module.
type ptxDecls struct {
	Entries []ptxEntry
	Vars    []ptxVar
}

// ptxTypeSizes are the fundamental types a declaration may have.
var ptxTypeSizes = map[string]int{
	"b8": 1, "b16": 2, "b32": 4, "b64": 8, "u8": 1, "u16": 2, "u32": 4, "u64": 8,
	"s8": 1, "s16": 2, "s32": 4, "s64": 8, "f16": 2, "f32": 4, "f64": 8, "pred": 1,
}

// ptxToken is a word or punctuation mark of PTX text, with its line.
type ptxToken struct {
	text string
	line int
}

// tokenizePTX splits PTX text into words (identifiers, directives,
// numbers) and single punctuation marks, dropping comments and strings.
func tokenizePTX(text string) []ptxToken {
	var toks []ptxToken
	line := 1
	isWord := func(r byte) bool {
		return r == '_' || r == '.' || r == '$' || r == '%' || r < 128 && (unicode.IsLetter(rune(r)) || unicode.IsDigit(rune(r)))
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.HasPrefix(text[i:], "//"):
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				end = len(text) - i - 2
			}
			line += strings.Count(text[i:i+2+end], "\n")
			i += end + 4
		case c == '"':
			j := i + 1
			for j < len(text) && text[j] != '"' && text[j] != '\n' {
				j++
			}
			i = j + 1
		case isWord(c):
			j := i
			for j < len(text) && isWord(text[j]) {
				j++
			}
			toks = append(toks, ptxToken{text[i:j], line})
			i = j
		default:
			toks = append(toks, ptxToken{string(c), line})
			i++
		}
	}
	return toks
}

// parsePTXDecls reads the kernels' signatures and the module variables of
// PTX text. Instructions are skipped; a malformed signature is an error
// with its line.
func parsePTXDecls(text string) (ptxDecls, error) {
	var decls ptxDecls
	toks := tokenizePTX(text)
	depth := 0
	for i := 0; i < len(toks); i++ {
		switch t := toks[i].text; {
		case t == "{":
			depth++
		case t == "}":
			depth--
		case depth > 0:
		case t == ".entry":
			e, next, err := parseEntry(toks, i+1)
			if err != nil {
				return decls, err
			}
			decls.Entries = append(decls.Entries, e)
			i = next - 1
		case t == ".global" || t == ".const":
			v, next, err := parseVar(toks, i)
			if err != nil {
				return decls, err
			}
			if v.Name != "" {
				decls.Vars = append(decls.Vars, v)
			}
			i = next - 1
		}
	}
	return decls, nil
}

// parseEntry reads "name ( .param ..., ... )" from toks[i:], returning the
// index after the closing parenthesis (or after the name of a kernel
// without a parameter list).
func parseEntry(toks []ptxToken, i int) (ptxEntry, int, error) {
	if i >= len(toks) {
		return ptxEntry{}, i, fmt.Errorf("PTX: .entry without a name at the end of the text")
	}
	e := ptxEntry{Name: toks[i].text, Line: toks[i].line}
	i++
	if i >= len(toks) || toks[i].text != "(" {
		return e, i, nil
	}
	i++
	var cur []ptxToken
	for ; i < len(toks); i++ {
		switch toks[i].text {
		case ",", ")":
			if len(cur) > 0 {
				p, err := parseParam(e.Name, cur)
				if err != nil {
					return e, i, err
				}
				e.Params = append(e.Params, p)
			}
			cur = cur[:0]
			if toks[i].text == ")" {
				return e, i + 1, nil
			}
		default:
			cur = append(cur, toks[i])
		}
	}
	return e, i, fmt.Errorf("PTX line %d: the parameter list of kernel %s is not closed", e.Line, e.Name)
}

// parseParam reads ".param [.align N] [.ptr .space .align N] .type name[count]".
func parseParam(kernel string, toks []ptxToken) (ptxParam, error) {
	var p ptxParam
	count := 1
	for j := 0; j < len(toks); j++ {
		t := toks[j].text
		switch {
		case t == ".align":
			j++ // its value
		case strings.HasPrefix(t, ".") && ptxTypeSizes[t[1:]] > 0 && p.Type == "":
			p.Type = t[1:]
		case t == "[":
			if j+2 < len(toks) && toks[j+2].text == "]" {
				n, err := strconv.Atoi(toks[j+1].text)
				if err != nil || n < 1 {
					return p, fmt.Errorf("PTX line %d: kernel %s: parameter %s has array size %q", toks[j].line, kernel, p.Name, toks[j+1].text)
				}
				count = n
				j += 2
			}
		case !strings.HasPrefix(t, "."):
			p.Name = t
		}
	}
	if p.Type == "" || p.Name == "" {
		return p, fmt.Errorf("PTX line %d: kernel %s: cannot read parameter %q", toks[0].line, kernel, joinPTX(toks))
	}
	p.Size = ptxTypeSizes[p.Type] * count
	return p, nil
}

// parseVar reads a module variable from toks[i] (its state space) to the
// semicolon, skipping an initializer. An .extern declaration gives a
// variable without a name (it has no storage here).
func parseVar(toks []ptxToken, i int) (ptxVar, int, error) {
	v := ptxVar{Space: toks[i].text[1:], Count: 1, Line: toks[i].line}
	extern := i > 0 && toks[i-1].text == ".extern"
	j := i + 1
decl:
	for ; j < len(toks) && toks[j].text != ";"; j++ {
		switch t := toks[j].text; {
		case t == "=":
			// an initializer, braces and all, up to the semicolon
			depth := 0
			for j++; j < len(toks); j++ {
				switch toks[j].text {
				case "{":
					depth++
				case "}":
					depth--
				case ";":
					if depth == 0 {
						break decl
					}
				}
			}
		case t == ".align":
			if j+1 < len(toks) {
				v.Align, _ = strconv.Atoi(toks[j+1].text)
			}
			j++
		case strings.HasPrefix(t, ".") && ptxTypeSizes[t[1:]] > 0 && v.Type == "":
			v.Type = t[1:]
		case t == "[":
			if j+1 < len(toks) && toks[j+1].text == "]" {
				v.Count = 0 // an unsized array
				j++
				continue
			}
			if j+2 >= len(toks) || toks[j+2].text != "]" {
				return v, j, fmt.Errorf("PTX line %d: variable %s: unreadable array size", toks[j].line, v.Name)
			}
			n, err := strconv.Atoi(toks[j+1].text)
			if err != nil || n < 0 {
				return v, j, fmt.Errorf("PTX line %d: variable %s has array size %q", toks[j].line, v.Name, toks[j+1].text)
			}
			v.Count = n
			j += 2
		case !strings.HasPrefix(t, ".") && v.Name == "":
			v.Name = t
		}
	}
	if extern || v.Type == "" {
		v.Name = ""
	}
	return v, j + 1, nil
}

// joinPTX joins tokens with spaces, for messages.
func joinPTX(toks []ptxToken) string {
	s := make([]string, len(toks))
	for i, t := range toks {
		s[i] = t.text
	}
	return strings.Join(s, " ")
}

// demangle returns the source name of a C++ function from its Itanium
// mangled name ("_Z6vecAddPfS_S_i" is "vecAdd", "_ZN2ns4scanEPi" is
// "ns::scan"), so that a cell names a kernel as its source does. Names that
// are not mangled (extern "C") come back unchanged; so do templates and
// anything else this small reader does not know.
func demangle(name string) string {
	if !strings.HasPrefix(name, "_Z") {
		return name
	}
	s := name[2:]
	nested := strings.HasPrefix(s, "N")
	if nested {
		s = s[1:]
	}
	var parts []string
	for len(s) > 0 && s[0] >= '0' && s[0] <= '9' {
		k := 0
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		n, err := strconv.Atoi(s[:k])
		if err != nil || k+n > len(s) {
			return name
		}
		parts = append(parts, s[k:k+n])
		s = s[k+n:]
		if !nested {
			break
		}
	}
	if len(parts) == 0 || nested && !strings.HasPrefix(s, "E") {
		return name
	}
	return strings.Join(parts, "::")
}
