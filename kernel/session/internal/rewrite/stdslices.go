package rewrite

// stdSlices is the session's own implementation of the generic functions of
// package slices, which yaegi cannot bind from the standard library (generic
// functions have no reflect value). Cells call them as slices.F: the session
// renames slices.F to _pnslices_F (see std.go). Slice parameters are
// []E rather than S ~[]E, whose inference the interpreter lacks; a result
// []E is still assignable to a named slice type.
const stdSlices = `
func _pnslices_less[E _pncmp_Ordered](a, b E) bool { return (a != a && b == b) || a < b }

func _pnslices_Sort[E _pncmp_Ordered](x []E) {
	_pnsort.Slice(x, func(i, j int) bool { return _pnslices_less(x[i], x[j]) })
}

func _pnslices_SortFunc[E any](x []E, cmp func(a, b E) int) {
	_pnsort.Slice(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 })
}

func _pnslices_SortStableFunc[E any](x []E, cmp func(a, b E) int) {
	_pnsort.SliceStable(x, func(i, j int) bool { return cmp(x[i], x[j]) < 0 })
}

func _pnslices_IsSorted[E _pncmp_Ordered](x []E) bool {
	for i := 1; i < len(x); i++ {
		if _pnslices_less(x[i], x[i-1]) {
			return false
		}
	}
	return true
}

func _pnslices_IsSortedFunc[E any](x []E, cmp func(a, b E) int) bool {
	for i := 1; i < len(x); i++ {
		if cmp(x[i], x[i-1]) < 0 {
			return false
		}
	}
	return true
}

func _pnslices_Index[E comparable](s []E, v E) int {
	for i := range s {
		if s[i] == v {
			return i
		}
	}
	return -1
}

func _pnslices_IndexFunc[E any](s []E, f func(E) bool) int {
	for i := range s {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

func _pnslices_Contains[E comparable](s []E, v E) bool { return _pnslices_Index(s, v) >= 0 }

func _pnslices_ContainsFunc[E any](s []E, f func(E) bool) bool { return _pnslices_IndexFunc(s, f) >= 0 }

func _pnslices_Reverse[E any](s []E) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

func _pnslices_Max[E _pncmp_Ordered](x []E) E {
	if len(x) == 0 {
		panic("slices.Max: empty list")
	}
	m := x[0]
	for _, v := range x[1:] {
		if v != v || v > m {
			m = v
		}
	}
	return m
}

func _pnslices_MaxFunc[E any](x []E, cmp func(a, b E) int) E {
	if len(x) == 0 {
		panic("slices.MaxFunc: empty list")
	}
	m := x[0]
	for _, v := range x[1:] {
		if cmp(v, m) > 0 {
			m = v
		}
	}
	return m
}

func _pnslices_Min[E _pncmp_Ordered](x []E) E {
	if len(x) == 0 {
		panic("slices.Min: empty list")
	}
	m := x[0]
	for _, v := range x[1:] {
		if v != v || v < m {
			m = v
		}
	}
	return m
}

func _pnslices_MinFunc[E any](x []E, cmp func(a, b E) int) E {
	if len(x) == 0 {
		panic("slices.MinFunc: empty list")
	}
	m := x[0]
	for _, v := range x[1:] {
		if cmp(v, m) < 0 {
			m = v
		}
	}
	return m
}

func _pnslices_Equal[E comparable](s1, s2 []E) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i := range s1 {
		if s1[i] != s2[i] {
			return false
		}
	}
	return true
}

func _pnslices_EqualFunc[E1, E2 any](s1 []E1, s2 []E2, eq func(E1, E2) bool) bool {
	if len(s1) != len(s2) {
		return false
	}
	for i := range s1 {
		if !eq(s1[i], s2[i]) {
			return false
		}
	}
	return true
}

func _pnslices_Compare[E _pncmp_Ordered](s1, s2 []E) int {
	for i := 0; i < len(s1) && i < len(s2); i++ {
		if c := _pncmp_Compare(s1[i], s2[i]); c != 0 {
			return c
		}
	}
	return _pncmp_Compare(len(s1), len(s2))
}

func _pnslices_BinarySearch[E _pncmp_Ordered](x []E, target E) (int, bool) {
	lo, hi := 0, len(x)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if _pncmp_Compare(x[m], target) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(x) && _pncmp_Compare(x[lo], target) == 0
}

func _pnslices_BinarySearchFunc[E, T any](x []E, target T, cmp func(E, T) int) (int, bool) {
	lo, hi := 0, len(x)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cmp(x[m], target) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(x) && cmp(x[lo], target) == 0
}

func _pnslices_Insert[E any](s []E, i int, v ...E) []E {
	if i < 0 || i > len(s) {
		panic(_pnfmt.Sprintf("slices.Insert: index %d out of range [0:%d]", i, len(s)))
	}
	out := make([]E, 0, len(s)+len(v))
	out = append(out, s[:i]...)
	out = append(out, v...)
	return append(out, s[i:]...)
}

func _pnslices_Delete[E any](s []E, i, j int) []E {
	if i < 0 || j > len(s) || i > j {
		panic(_pnfmt.Sprintf("slices.Delete: range [%d:%d] out of range [0:%d]", i, j, len(s)))
	}
	n := copy(s[i:], s[j:])
	var zero E
	for k := i + n; k < len(s); k++ {
		s[k] = zero
	}
	return s[:i+n]
}

func _pnslices_DeleteFunc[E any](s []E, del func(E) bool) []E {
	n := 0
	for _, v := range s {
		if !del(v) {
			s[n] = v
			n++
		}
	}
	var zero E
	for k := n; k < len(s); k++ {
		s[k] = zero
	}
	return s[:n]
}

func _pnslices_Replace[E any](s []E, i, j int, v ...E) []E {
	tail := _pnslices_Clone(s[j:])
	return append(append(s[:i], v...), tail...)
}

func _pnslices_Clone[E any](s []E) []E {
	if s == nil {
		return nil
	}
	return append(make([]E, 0, len(s)), s...)
}

func _pnslices_Compact[E comparable](s []E) []E {
	return _pnslices_CompactFunc(s, func(a, b E) bool { return a == b })
}

func _pnslices_CompactFunc[E any](s []E, eq func(E, E) bool) []E {
	if len(s) < 2 {
		return s
	}
	n := 1
	for k := 1; k < len(s); k++ {
		if !eq(s[k], s[n-1]) {
			s[n] = s[k]
			n++
		}
	}
	var zero E
	for k := n; k < len(s); k++ {
		s[k] = zero
	}
	return s[:n]
}

func _pnslices_Concat[E any](ss ...[]E) []E {
	n := 0
	for _, s := range ss {
		n += len(s)
	}
	out := make([]E, 0, n)
	for _, s := range ss {
		out = append(out, s...)
	}
	return out
}

func _pnslices_Repeat[E any](x []E, count int) []E {
	if count < 0 {
		panic("slices.Repeat: negative count")
	}
	out := make([]E, 0, len(x)*count)
	for k := 0; k < count; k++ {
		out = append(out, x...)
	}
	return out
}

func _pnslices_Grow[E any](s []E, n int) []E {
	if n < 0 {
		panic("slices.Grow: negative n")
	}
	if cap(s)-len(s) >= n {
		return s
	}
	return append(s, make([]E, n)...)[:len(s)]
}

func _pnslices_Clip[E any](s []E) []E { return s[:len(s):len(s)] }

func _pnslices_All[E any](s []E) func(yield func(int, E) bool) {
	return func(yield func(int, E) bool) {
		for i, v := range s {
			if !yield(i, v) {
				return
			}
		}
	}
}

func _pnslices_Backward[E any](s []E) func(yield func(int, E) bool) {
	return func(yield func(int, E) bool) {
		for i := len(s) - 1; i >= 0; i-- {
			if !yield(i, s[i]) {
				return
			}
		}
	}
}

func _pnslices_Values[E any](s []E) func(yield func(E) bool) {
	return func(yield func(E) bool) {
		for _, v := range s {
			if !yield(v) {
				return
			}
		}
	}
}

func _pnslices_AppendSeq[E any](s []E, seq func(yield func(E) bool)) []E {
	seq(func(v E) bool {
		s = append(s, v)
		return true
	})
	return s
}

func _pnslices_Collect[E any](seq func(yield func(E) bool)) []E {
	return _pnslices_AppendSeq([]E(nil), seq)
}

func _pnslices_Sorted[E _pncmp_Ordered](seq func(yield func(E) bool)) []E {
	s := _pnslices_Collect(seq)
	_pnslices_Sort(s)
	return s
}

func _pnslices_SortedFunc[E any](seq func(yield func(E) bool), cmp func(E, E) int) []E {
	s := _pnslices_Collect(seq)
	_pnslices_SortFunc(s, cmp)
	return s
}

func _pnslices_Chunk[E any](s []E, n int) func(yield func([]E) bool) {
	if n < 1 {
		panic("slices.Chunk: n must be at least 1")
	}
	return func(yield func([]E) bool) {
		for i := 0; i < len(s); i += n {
			end := i + n
			if end > len(s) {
				end = len(s)
			}
			if !yield(s[i:end:end]) {
				return
			}
		}
	}
}
`
