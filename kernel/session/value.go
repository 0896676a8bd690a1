package session

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of the text form of values, so that a cell ending in a big slice or
// map shows a readable summary instead of megabytes of text.
const (
	maxItems = 100   // elements of a slice, array or map shown
	maxRows  = 40    // rows of a slice of slices shown, one per line
	maxText  = 20000 // bytes of the whole text form
)

// formatValues returns the text form of a cell's trailing expression: the
// values separated by spaces, as fmt.Println would print them except that
//   - strings are quoted (Go syntax), so that "" and " " can be told apart;
//   - struct fields are named, as with %+v;
//   - slices, arrays and maps longer than maxItems show their first items
//     and the length; a slice of slices prints one row per line;
//   - types with a String or Error method print through it.
func formatValues(vals []any) string {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(' ')
		}
		p := textPrinter{b: &b}
		p.value(reflect.ValueOf(v), 0)
	}
	s := b.String()
	if len(s) > maxText {
		cut := maxText
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + fmt.Sprintf("… (text form truncated at %d of %d bytes)", cut, len(s))
	}
	return s
}

// textPrinter writes the text form of one value.
type textPrinter struct {
	b *strings.Builder
}

var (
	stringerType = reflect.TypeFor[fmt.Stringer]()
	errorType    = reflect.TypeFor[error]()
	formatType   = reflect.TypeFor[fmt.Formatter]()
)

func (p *textPrinter) value(v reflect.Value, depth int) {
	if p.b.Len() > maxText {
		return
	}
	if !v.IsValid() {
		p.b.WriteString("<nil>")
		return
	}
	if t := v.Type(); v.CanInterface() && (t.Implements(stringerType) || t.Implements(errorType) || t.Implements(formatType)) {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			p.b.WriteString("<nil>")
			return
		}
		p.b.WriteString(p.safeSprint(v.Interface()))
		return
	}
	switch v.Kind() {
	case reflect.String:
		p.b.WriteString(strconv.Quote(v.String()))
	case reflect.Interface:
		p.value(v.Elem(), depth)
	case reflect.Pointer:
		if v.IsNil() {
			p.b.WriteString("<nil>")
			return
		}
		if depth == 0 && (v.Elem().Kind() == reflect.Struct || v.Elem().Kind() == reflect.Slice ||
			v.Elem().Kind() == reflect.Array || v.Elem().Kind() == reflect.Map) {
			p.b.WriteByte('&')
			p.value(v.Elem(), depth+1)
			return
		}
		fmt.Fprintf(p.b, "%p", v.Interface())
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			p.b.WriteString("[]")
			return
		}
		p.list(v, depth)
	case reflect.Map:
		p.mapValue(v, depth)
	case reflect.Struct:
		p.structValue(v, depth)
	default:
		if v.CanInterface() {
			fmt.Fprintf(p.b, "%v", v.Interface())
		} else {
			fmt.Fprintf(p.b, "%v", v)
		}
	}
}

// safeSprint formats v with fmt, turning a panic of its String method into
// text: a nil receiver must not fail the cell after it ran.
func (p *textPrinter) safeSprint(v any) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprintf("%%!v(PANIC=String method: %v)", r)
		}
	}()
	return fmt.Sprint(v)
}

// list writes a slice or array; a slice of slices gets one row per line.
func (p *textPrinter) list(v reflect.Value, depth int) {
	n := v.Len()
	rows := n > 0 && depth == 0 && isListKind(v.Type().Elem().Kind())
	limit := maxItems
	if rows {
		limit = maxRows
	}
	p.b.WriteByte('[')
	for i := 0; i < n && i < limit; i++ {
		if i > 0 {
			if rows {
				p.b.WriteString("\n ")
			} else {
				p.b.WriteByte(' ')
			}
		}
		p.value(v.Index(i), depth+1)
	}
	if n > limit {
		sep := " "
		if rows {
			sep = "\n "
		}
		fmt.Fprintf(p.b, "%s… (%d more, len %d)", sep, n-limit, n)
	}
	p.b.WriteByte(']')
}

func isListKind(k reflect.Kind) bool { return k == reflect.Slice || k == reflect.Array }

// mapValue writes a map with its keys sorted, as fmt does.
func (p *textPrinter) mapValue(v reflect.Value, depth int) {
	if v.IsNil() {
		p.b.WriteString("map[]")
		return
	}
	keys := v.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return lessKey(keys[i], keys[j]) })
	p.b.WriteString("map[")
	for i, k := range keys {
		if i == maxItems {
			fmt.Fprintf(p.b, " … (%d more, len %d)", len(keys)-maxItems, len(keys))
			break
		}
		if i > 0 {
			p.b.WriteByte(' ')
		}
		p.value(k, depth+1)
		p.b.WriteByte(':')
		p.value(v.MapIndex(k), depth+1)
	}
	p.b.WriteByte(']')
}

// lessKey orders map keys: numbers by value, strings lexically, other kinds
// by their text.
func lessKey(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() < b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() < b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() < b.Float()
	case reflect.String:
		return a.String() < b.String()
	}
	return fmt.Sprint(a) < fmt.Sprint(b)
}

// structValue writes {Name:value ...}.
func (p *textPrinter) structValue(v reflect.Value, depth int) {
	t := v.Type()
	p.b.WriteByte('{')
	for i := 0; i < v.NumField(); i++ {
		if i > 0 {
			p.b.WriteByte(' ')
		}
		p.b.WriteString(t.Field(i).Name)
		p.b.WriteByte(':')
		p.value(v.Field(i), depth+1)
	}
	p.b.WriteByte('}')
}
