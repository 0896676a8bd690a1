package cpu

// The AVX2 kernels of kernels_amd64.s; see kernels.go for how they are used.

//go:noescape
func pivotRowsAVX2(c, a, b *int32, rows, width, stride int)

//go:noescape
func pivotRowsPredAVX2(c, p, a, b, pb *int32, rows, width, stride int)

//go:noescape
func stripAVX2(c, a, b *int32, rows, depth, stride int)

//go:noescape
func stripPredAVX2(c, p, a, b, pb *int32, rows, depth, stride int)

//go:noescape
func strip8AVX2(c, a, b *int32, rows, depth, stride int)

//go:noescape
func strip8PredAVX2(c, p, a, b, pb *int32, rows, depth, stride int)

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

func xgetbv() (eax, edx uint32)

// hasAVX2 reports whether the CPU has AVX2 and the OS saves the YMM
// registers across context switches (OSXSAVE with XCR0 bits 1 and 2).
func hasAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if c&osxsave == 0 || c&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, b, _, _ := cpuid(7, 0)
	return b&(1<<5) != 0
}

func init() {
	if hasAVX2() {
		simd = &simdKernels{
			pivotRows:     pivotRowsAVX2,
			pivotRowsPred: pivotRowsPredAVX2,
			strip:         stripAVX2,
			stripPred:     stripPredAVX2,
			strip8:        strip8AVX2,
			strip8Pred:    strip8PredAVX2,
		}
	}
}
