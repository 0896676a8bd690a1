package main

import "github.com/pathnotes/pathnotes/gpu"

// The GPU lines of `pathnotes info`: the active driver (or why there is
// none: built without CUDA, PATHNOTES_GPU=off) and every device with its
// limits.
func init() {
	infoLines = append(infoLines, gpu.Describe)
}
