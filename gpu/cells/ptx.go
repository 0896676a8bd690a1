package cells

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pathnotes/pathnotes/gpu/ptxemu"
)

// The cell API checks launch arguments against the kernel's .param list
// and gives module variables an element type. Both drivers load the same
// PTX text, so the emulator's parser reads its declarations for both
// (ptxemu.ParseDecls, which skips the instructions).

// paramString formats a kernel parameter as PTX writes it, e.g. ".u32 n"
// or ".b8 s[12]" for an aggregate.
func paramString(p ptxemu.Param) string {
	if p.Type == "b8" && p.Size != 1 {
		return fmt.Sprintf(".b8 %s[%d]", p.Name, p.Size)
	}
	return "." + p.Type + " " + p.Name
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
