package ptxemu

import "slices"

// modset is an instruction's modifiers (the opcode's dotted parts). An
// operation's decoder takes those it understands; any left over make the
// instruction unsupported, so that no modifier is silently ignored.
type modset struct {
	list []string
	used []bool
}

func newModset(mods []string) *modset { return &modset{list: mods, used: make([]bool, len(mods))} }

// take consumes modifier name if present.
func (m *modset) take(name string) bool {
	for i, s := range m.list {
		if !m.used[i] && s == name {
			m.used[i] = true
			return true
		}
	}
	return false
}

// takeAny consumes the first of names present and returns it ("" if none).
func (m *modset) takeAny(names ...string) string {
	for i, s := range m.list {
		if m.used[i] {
			continue
		}
		for _, n := range names {
			if s == n {
				m.used[i] = true
				return s
			}
		}
	}
	return ""
}

// takeMode consumes the first unused modifier among names and returns its
// index in names: the mode constants of an instruction are declared in the
// order of its names. False when none of names is there.
func (m *modset) takeMode(names ...string) (uint8, bool) {
	i := slices.Index(names, m.takeAny(names...))
	return uint8(i), i >= 0
}

// takeType consumes the first unused type modifier.
func (m *modset) takeType() (ptxType, bool) {
	for i, s := range m.list {
		if t, ok := typeFor(s); ok && !m.used[i] {
			m.used[i] = true
			return t, true
		}
	}
	return ptxType{}, false
}

// rest lists the modifiers nobody took.
func (m *modset) rest() []string {
	var r []string
	for i, s := range m.list {
		if !m.used[i] {
			r = append(r, "."+s)
		}
	}
	return r
}
