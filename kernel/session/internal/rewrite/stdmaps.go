package rewrite

// stdMaps, stdCmp and stdIter are the session's own implementations of the
// generic functions and types of packages maps, cmp and iter (see
// stdSlices). Iterators are plain func(yield func(K, V) bool) values, which
// is what iter.Seq2[K, V] and iter.Seq[V] are.
const stdMaps = `
func _pnmaps_Keys[K comparable, V any](m map[K]V) func(yield func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func _pnmaps_Values[K comparable, V any](m map[K]V) func(yield func(V) bool) {
	return func(yield func(V) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

func _pnmaps_All[K comparable, V any](m map[K]V) func(yield func(K, V) bool) {
	return func(yield func(K, V) bool) {
		for k, v := range m {
			if !yield(k, v) {
				return
			}
		}
	}
}

func _pnmaps_Clone[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return nil
	}
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func _pnmaps_Copy[K comparable, V any](dst, src map[K]V) {
	for k, v := range src {
		dst[k] = v
	}
}

func _pnmaps_DeleteFunc[K comparable, V any](m map[K]V, del func(K, V) bool) {
	for k, v := range m {
		if del(k, v) {
			delete(m, k)
		}
	}
}

func _pnmaps_Equal[K, V comparable](m1, m2 map[K]V) bool {
	if len(m1) != len(m2) {
		return false
	}
	for k, v1 := range m1 {
		if v2, ok := m2[k]; !ok || v1 != v2 {
			return false
		}
	}
	return true
}

func _pnmaps_EqualFunc[K comparable, V1, V2 any](m1 map[K]V1, m2 map[K]V2, eq func(V1, V2) bool) bool {
	if len(m1) != len(m2) {
		return false
	}
	for k, v1 := range m1 {
		if v2, ok := m2[k]; !ok || !eq(v1, v2) {
			return false
		}
	}
	return true
}

func _pnmaps_Insert[K comparable, V any](m map[K]V, seq func(yield func(K, V) bool)) {
	seq(func(k K, v V) bool {
		m[k] = v
		return true
	})
}

func _pnmaps_Collect[K comparable, V any](seq func(yield func(K, V) bool)) map[K]V {
	m := map[K]V{}
	_pnmaps_Insert(m, seq)
	return m
}
`

const stdCmp = `
type _pncmp_Ordered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string
}

func _pncmp_Less[T _pncmp_Ordered](x, y T) bool { return (x != x && y == y) || x < y }

func _pncmp_Compare[T _pncmp_Ordered](x, y T) int {
	xNaN, yNaN := x != x, y != y
	switch {
	case xNaN && yNaN:
		return 0
	case xNaN || x < y:
		return -1
	case yNaN || x > y:
		return 1
	}
	return 0
}

func _pncmp_Or[T comparable](vals ...T) T {
	var zero T
	for _, v := range vals {
		if v != zero {
			return v
		}
	}
	return zero
}
`

const stdIter = `
type _pniter_Seq[V any] func(yield func(V) bool)

type _pniter_Seq2[K, V any] func(yield func(K, V) bool)
`
