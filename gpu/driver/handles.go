package driver

// handles holds driver objects behind handles: handle h is items[h-1],
// and 0 names none. The slots of destroyed objects are reused, so that the
// table stays small. The context's mutex guards it.
type handles[T comparable] struct {
	items []T
	spare []int
}

// add stores v and returns its handle.
func (t *handles[T]) add(v T) int {
	if k := len(t.spare); k > 0 {
		h := t.spare[k-1]
		t.spare = t.spare[:k-1]
		t.items[h-1] = v
		return h
	}
	t.items = append(t.items, v)
	return len(t.items)
}

// get returns the object of handle h, and whether h is in the table (a
// destroyed object's handle is, holding the zero value).
func (t *handles[T]) get(h int) (T, bool) {
	if h < 1 || h > len(t.items) {
		var zero T
		return zero, false
	}
	return t.items[h-1], true
}

// free makes h's slot reusable, unless a Reset emptied the table since.
func (t *handles[T]) free(h int) {
	if h >= 1 && h <= len(t.items) {
		var zero T
		t.items[h-1] = zero
		t.spare = append(t.spare, h)
	}
}
