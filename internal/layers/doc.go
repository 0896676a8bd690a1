// Package layers holds the test that enforces the layers table of docs/design.md on the import
// lists `go list` reports, with and without the cuda build tag.
//
// The table is the rule and the test reads it: each row names packages, the project packages
// their non-test files may import, and what their tests may import besides. A package the table
// does not place, an import it does not allow, a row for a package that no longer exists and an
// allowance that no package of its row uses all fail the test, so that the document and the code
// cannot drift apart. graph is at the bottom; cpu and gpu stand on it; display knows results, not
// solvers; the kernel imports no solver package; internal/cli, internal/magics and the root
// package wire the pieces together.
package layers
