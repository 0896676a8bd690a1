package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// magicRun is %run FILE.go: it runs the file's Go as a cell, so that its
// declarations join the session's (a package clause is ignored, and a
// func main runs as in a pasted program). Positions in errors name the
// file.
func magicRun(ctx context.Context, s *Session, args, _ string, _ Output) (*Bundle, error) {
	if args == "" {
		return nil, fmt.Errorf("usage: %%run FILE.go")
	}
	src, err := os.ReadFile(args)
	if err != nil {
		return nil, err
	}
	b, err := s.runCode(ctx, string(src))
	if err != nil {
		var ce *CellError
		if !errors.As(err, &ce) {
			return nil, err
		}
		named := *ce
		named.Value = cellPos.ReplaceAllString(ce.Value, fileRef(args))
		named.Traceback = nil
		for _, l := range ce.Traceback {
			named.Traceback = append(named.Traceback, cellPos.ReplaceAllString(l, fileRef(args)))
		}
		return nil, &named
	}
	return b, nil
}

// cellPos matches the cell's positions in messages: "cell:3:5".
var cellPos = regexp.MustCompile(`\b` + cellName + `:(\d+(:\d+)?)\b`)

// fileRef is the replacement of cellPos that names file instead.
func fileRef(file string) string {
	return strings.ReplaceAll(file, "$", "$$") + ":${1}"
}
