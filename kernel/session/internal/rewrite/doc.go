// Package rewrite turns Go that yaegi 0.16.1 cannot run, or runs wrongly,
// into Go it runs the same way: a pipeline of passes over the syntax tree
// of each piece of a cell, kept in one registry (passes.go).
//
// Each pass closes one gap of the interpreter, and says which: its name,
// the gap in a line, the stage at which the session runs it, the rewrite,
// and, where yaegi's own message for code the pass leaves alone misleads, a
// hint added to that message. A gap yaegi closes is removed by deleting its
// entry and its file; a new gap gets a file of its own, an entry, and a
// test table of source before and after in the file's _test.go.
//
// The gaps of yaegi 0.16.1 that the passes close, in the registry's order:
//   - a switch without a tag tests only the first expression of a case
//     clause of several (tagless-cases);
//   - the generic functions of packages slices, maps and cmp, and the types
//     of iter, are missing: the session's own Go stands in for them, under
//     names prefixed _pnslices_ and so on (std-generics);
//   - type arguments that Go infers and yaegi does not are written out,
//     after a type check of the piece in the session (type-args);
//   - a variable defined by a generic call gets the call's type written
//     out, or is declared first and assigned after (generic-results);
//   - range over an integer or a function (Go 1.22, 1.23) becomes loops and
//     calls it runs, on the same lines (ranges);
//   - var b = a + 1, with a from an earlier cell, runs after the rest of the
//     piece's declarations (late-vars);
//   - a top-level if, for, switch or block that holds v, err := f() runs
//     as the call of a function literal, where yaegi keeps err
//     (compound-defines);
//   - the generic min and max the session defines get typed arguments
//     first, and a definition by them is split in two (min-max);
//   - clear is missing: only a hint (clear).
//
// Every node a pass makes takes the position of the code it stands for, so
// that errors name the cell's own lines and columns. The type check that
// guides the passes which need types (Piece.Types) converts the reflect
// types of the bound packages and of the session's variables into go/types
// (reflecttypes.go); where it finds no types, the code is left to the
// interpreter, whose message stands.
package rewrite
