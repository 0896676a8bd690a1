package cpu

// simdKernels are vector versions of the blocked Floyd-Warshall loops on
// int32, installed at start-up where the CPU has them (AVX2 on amd64, see
// kernels_amd64.go). Without them every tile runs the Go loops, which give
// the same results.
type simdKernels struct {
	// pivotRows applies one pivot to rows of a tile: for each of rows rows
	// i, c_i[j] = min(c_i[j], a_i + b[j]) for j < width, width a multiple
	// of 8; rows, a_i and c_i are stride elements apart.
	pivotRows func(c, a, b *int32, rows, width, stride int)
	// pivotRowsPred is pivotRows that also sets p_i[j] = pb[j] where the
	// sum is strictly smaller.
	pivotRowsPred func(c, p, a, b, pb *int32, rows, width, stride int)
	// strip applies depth pivots to 32 columns of rows rows: c_i[j] =
	// min(c_i[j], a_i[k] + b_k[j]) with k in order, the 32 lanes held in
	// registers over the whole pivot loop.
	strip func(c, a, b *int32, rows, depth, stride int)
	// stripPred is strip that also keeps p_i[j] = pb_k[j] for the first
	// strictly better k.
	stripPred func(c, p, a, b, pb *int32, rows, depth, stride int)
	// strip8 and strip8Pred are strip and stripPred for 8 columns.
	strip8     func(c, a, b *int32, rows, depth, stride int)
	strip8Pred func(c, p, a, b, pb *int32, rows, depth, stride int)
}

// simd is nil where the CPU lacks the vector kernels (and in tests that
// check the Go loops alone).
var simd *simdKernels

// pivotSIMD applies pivot k to rows i0..i1-1 over the widest run of
// columns from j0 that the vector kernel takes (a multiple of 8) and
// returns the first column it left to the Go loop. Within one pivot every
// cell is independent (row k and column k do not change under pivot k), so
// splitting the columns keeps the results of the plain loop.
func (b *blocked[T]) pivotSIMD(k, i0, i1, j0, j1 int) int {
	w := (j1 - j0) &^ 7
	if b.d32 == nil || simd == nil || w == 0 || i1 <= i0 {
		return j0
	}
	n, d, p := b.n, b.d32, b.pred
	if p == nil {
		simd.pivotRows(&d[i0*n+j0], &d[i0*n+k], &d[k*n+j0], i1-i0, w, n)
	} else {
		simd.pivotRowsPred(&d[i0*n+j0], &p[i0*n+j0], &d[i0*n+k], &d[k*n+j0], &p[k*n+j0], i1-i0, w, n)
	}
	return j0 + w
}

// phase3SIMD runs phase 3 for tile rows i0..i1-1 over as many columns from
// j0 as the vector kernels take, 32 at a time, then 8 at a time, and
// returns the first column left to the Go loop. Phase 3 reads only tiles
// it does not write, so columns are independent and pivot order within a
// column is all that matters for Π.
func (b *blocked[T]) phase3SIMD(i0, i1, j0, j1, k0, k1 int) int {
	if b.d32 == nil || simd == nil || i1 <= i0 || k1 <= k0 {
		return j0
	}
	n, d, p := b.n, b.d32, b.pred
	rows, depth := i1-i0, k1-k0
	for ; j0+32 <= j1; j0 += 32 {
		if p == nil {
			simd.strip(&d[i0*n+j0], &d[i0*n+k0], &d[k0*n+j0], rows, depth, n)
		} else {
			simd.stripPred(&d[i0*n+j0], &p[i0*n+j0], &d[i0*n+k0], &d[k0*n+j0], &p[k0*n+j0], rows, depth, n)
		}
	}
	for ; j0+8 <= j1; j0 += 8 {
		if p == nil {
			simd.strip8(&d[i0*n+j0], &d[i0*n+k0], &d[k0*n+j0], rows, depth, n)
		} else {
			simd.strip8Pred(&d[i0*n+j0], &p[i0*n+j0], &d[i0*n+k0], &d[k0*n+j0], &p[k0*n+j0], rows, depth, n)
		}
	}
	return j0
}
