package gpu

import "fmt"

// tile is the side of the tiles and 2-D blocks of every blocked
// Floyd-Warshall variant (TILE in ptx/common.cuh).
const tile = 32

// tileBytes is the shared memory one tile of int32 takes.
const tileBytes = tile * tile * 4

// Block shapes the documents use.
var (
	block2D   = Dim(tile, tile, 1) // 32×32: Karaula, Bodra's FW, Gaioso
	block1024 = Dim(1024, 1, 1)    // Bodra's 1-D kernels (THREADS_PER_BLOCK)
	block512  = Dim(512, 1, 1)     // Musap's threadsPerBlock
)

// ceilDiv returns ⌈a/b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int) int { return (a + b - 1) / b }

// tiles returns the number of tiles per side of an n×n matrix, ⌈n/32⌉:
// the number of rounds (primary tiles) of the blocked variants.
func tiles(n int) int { return ceilDiv(n, tile) }

// grid1D is a 1-D grid of ⌈n/threads⌉ blocks, at least one.
func grid1D(n, threads int) Dim3 { return Dim(max(ceilDiv(n, threads), 1), 1, 1) }

// strideGrid is the grid of Bodra's stride and flag Bellman-Ford: half the
// blocks of the naive grid. Bodra computes ((V-1)/1024+1)/2, which is 0 —
// an invalid launch — for V ≤ 1024; it is at least 1 here.
func strideGrid(n int) Dim3 { return Dim(max(ceilDiv(n, 1024)/2, 1), 1, 1) }

// checkLaunch reports a launch shape the device cannot run, before the
// driver does, in terms a notebook user can act on.
func checkLaunch(info DeviceInfo, grid, block Dim3, shared int) error {
	for i, v := range [3]int{grid.X, grid.Y, grid.Z} {
		if v < 1 || (info.MaxGrid[i] > 0 && v > info.MaxGrid[i]) {
			return fmt.Errorf("grid %v is outside the device's limits (1..%v per dimension)", grid, info.MaxGrid)
		}
	}
	for i, v := range [3]int{block.X, block.Y, block.Z} {
		if v < 1 || (info.MaxBlock[i] > 0 && v > info.MaxBlock[i]) {
			return fmt.Errorf("block %v is outside the device's limits (1..%v per dimension)", block, info.MaxBlock)
		}
	}
	if t := block.Threads(); info.MaxThreadsPerBlock > 0 && t > info.MaxThreadsPerBlock {
		return fmt.Errorf("block %v has %d threads, the device allows %d", block, t, info.MaxThreadsPerBlock)
	}
	// Past SharedPerBlock the driver layer opts the kernel in (cuda.go).
	if most := max(info.SharedPerBlock, info.SharedPerBlockOptin); shared < 0 || (most > 0 && shared > most) {
		return fmt.Errorf("%d bytes of shared memory per block, the device allows %d", shared, most)
	}
	return nil
}
