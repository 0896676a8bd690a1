package gpu

import (
	"fmt"
	"sync"
	"testing"
)

// BenchmarkHostCopy times the host's part of a copy back: a result of
// 4 MiB (fw-fast at n = 1024), 16 MiB (2048) or 1 GiB (16384, larger
// than any cache: split over every core it is the host's copy rate, to set
// beside the 40 GB/s of issue 25's bound) copied from one buffer into
// another whose pages are touched, as the staging buffer's contents go into
// the result: by one goroutine, split over every core (parallelCopy, as
// viaStaged does after the bus), and in pieces of pipedPiece values, a
// goroutine each started one after the other (viaPiped's host side, without
// the bus).
func BenchmarkHostCopy(b *testing.B) {
	for _, mib := range []int{4, 16, 1024} {
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
