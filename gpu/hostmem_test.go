package gpu

import (
	"fmt"
	"sync"
	"testing"

	"github.com/pathnotes/pathnotes/graph"
)

// BenchmarkHostCopy times the host's part of a copy back: a result of
// 4 MiB (fw-fast at n = 1024) or 16 MiB (2048) copied from one buffer into
// another whose pages are touched, as the staging buffer's contents go into
// the result: by one goroutine, split over every core (parallelCopy, as
// viaStaged does after the bus), and in pieces of pipedPiece values, a
// goroutine each started one after the other (viaPiped's host side, without
// the bus).
func BenchmarkHostCopy(b *testing.B) {
	for _, mib := range []int{4, 16} {
		src := make([]int32, mib<<18)
		dst := uninitInt32s(len(src))
		for i := range src {
			src[i], dst[i] = int32(i), 0
		}
		for _, way := range []string{"one-core", "all-cores", "pieces"} {
			b.Run(fmt.Sprintf("MiB=%d/%s", mib, way), func(b *testing.B) {
				b.SetBytes(int64(len(src)) * 4)
				for range b.N {
					var wg sync.WaitGroup
					switch way {
					case "one-core":
						copy(dst, src)
					case "all-cores":
						parallelCopy(&wg, dst, src)
					case "pieces":
						for lo := 0; lo < len(src); lo += pipedPiece {
							hi := min(lo+pipedPiece, len(src))
							wg.Go(func() { copy(dst[lo:hi], src[lo:hi]) })
						}
					}
					wg.Wait()
				}
				if dst[len(dst)-1] != src[len(src)-1] {
					b.Fatal("the copy missed the last value")
				}
			})
		}
	}
}

// TestWiden16 widens 16-bit rows of odd and even widths over every range
// of their values, as the parts of a piped copy cut them (a part may end
// or start inside a row), against a value-by-value reference: the low
// half first, f16Inf as graph.Inf, a padding half left out.
func TestWiden16(t *testing.T) {
	for _, cells := range []int{1, 2, 3, 6, 7} {
		const rows, lo = 4, 1
		w := (cells + 1) / 2
		buf := make([]int32, rows*w)
		want := make([]int32, (lo+rows)*cells)
		for i := range buf {
			a, b := uint32(i*37%f16Inf), uint32(f16Inf-i%5) // some highs are f16Inf
			if i%4 == 1 {
				a = f16Inf
			}
			buf[i] = int32(a | b<<16)
		}
		for r := range rows {
			for c := range cells {
				v := uint32(buf[r*w+c/2]) >> (16 * (c % 2)) & 0xffff
				want[(lo+r)*cells+c] = int32(v)
				if v == f16Inf {
					want[(lo+r)*cells+c] = graph.Inf
				}
			}
		}
		for from := 0; from <= len(buf); from++ {
			for to := from; to <= len(buf); to++ {
				got := make([]int32, len(want))
				widen16(got, buf, lo, w, cells, from, to)
				for k, v := range got {
					r, c := k/cells-lo, k%cells
					in := r >= 0 && r*w+c/2 >= from && r*w+c/2 < to
					if in && v != want[k] || !in && v != 0 {
						t.Fatalf("cells %d, values %d..%d: cell (%d, %d) = %d, want %d (in the range: %v)", cells, from, to-1, r, c, v, want[k], in)
					}
				}
			}
		}
	}
}
