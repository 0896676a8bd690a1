//go:build !unix

package graph

import (
	"errors"
	"os"
)

// mapFile reports that this system is read without mmap: the reader falls
// back to ReadAt.
func mapFile(*os.File, int64) ([]byte, error) { return nil, errors.New("no mmap") }

// unmapFile is never called where mapFile always fails.
func unmapFile([]byte) error { return nil }
