package dist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pathnotes/pathnotes/dist/comm"
	"github.com/pathnotes/pathnotes/graph"
)

// agree shares every rank's outcome of a step (err, nil for success) and
// returns the first failure, by rank, on every rank: so that all ranks go
// on, or none.
func agree(ctx context.Context, ctl *comm.Control, what string, err error) error {
	msg := []byte{}
	if err != nil {
		msg = []byte(err.Error())
	}
	all, gerr := ctl.AllGather(ctx, msg)
	if gerr != nil {
		return gerr
	}
	for r, m := range all {
		if len(m) > 0 {
			if r == ctl.Rank() {
				return err
			}
			return fmt.Errorf("dist: %s: rank %d: %s", what, r, m)
		}
	}
	return nil
}

// Prepare readies dir for a run's result, before any rank writes: every
// rank creates it, and rank 0 removes the manifest of an earlier result
// there, so that what this run leaves half-written is never read as a
// whole. Every rank calls it at once.
func Prepare(ctx context.Context, ctl *comm.Control, dir string) error {
	err := os.MkdirAll(dir, 0o755)
	if err == nil && ctl.Rank() == 0 {
		if e := os.Remove(filepath.Join(dir, graph.ManifestName)); e != nil && !errors.Is(e, fs.ErrNotExist) {
			err = e
		}
	}
	return agree(ctx, ctl, "preparing "+dir, err)
}

// Write writes each rank's files into dir and then, on rank 0, the
// manifest (graph.TiledManifest) with every rank's files, n, the tile,
// the grid and source, the graph's name as the run was given it. Every
// rank calls it at once; it returns when the manifest is written, on
// every rank, or with the first rank's failure.
func Write(ctx context.Context, ctl *comm.Control, dir string, part *Part, source string) error {
	var files []graph.TiledFile
	f, err := graph.WriteTile(dir, "dist", part.P, part.Q, part.Rows, part.Cols, part.Dist)
	files = append(files, f)
	if err == nil && part.Pred != nil {
		f, err = graph.WriteTile(dir, "pred", part.P, part.Q, part.Rows, part.Cols, part.Pred)
		files = append(files, f)
	}
	if err := agree(ctx, ctl, "writing the tiles", err); err != nil {
		return err
	}
	data, err := json.Marshal(files)
	if err != nil {
		return err
	}
	all, err := ctl.AllGather(ctx, data)
	if err != nil {
		return err
	}
	if ctl.Rank() == 0 {
		m := graph.TiledManifest{N: part.N, B: Tile, P: part.Grid.P, Q: part.Grid.Q, Pred: part.Pred != nil,
			Solver: Solver, Graph: source, Labels: part.Labels}
		for _, d := range all {
			var fs []graph.TiledFile
			if err = json.Unmarshal(d, &fs); err != nil {
				break
			}
			m.Files = append(m.Files, fs...)
		}
		if err == nil {
			err = graph.WriteManifest(dir, m)
		}
	}
	return agree(ctx, ctl, "writing the manifest", err)
}
