package scaleout

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/pathnotes/pathnotes/internal/atomicfile"
)

var update = flag.Bool("update", false, "rewrite the model's tables in docs/scale-out.md")

// docPath is the document whose tables Tables writes.
const docPath = "../../docs/scale-out.md"

// TestDocTables checks that every table of docs/scale-out.md between its begin and end
// markers is what Tables computes; -update (go generate ./internal/scaleout) rewrites them.
func TestDocTables(t *testing.T) {
	data, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, tb := range Tables() {
		begin, end := "<!-- begin "+tb.Name+" -->\n", "<!-- end "+tb.Name+" -->"
		i, j := strings.Index(doc, begin), strings.Index(doc, end)
		if i < 0 || j < i || strings.Count(doc, begin) != 1 {
			t.Fatalf("%s: no single %q … %q block", docPath, strings.TrimSpace(begin), end)
		}
		i += len(begin)
		if doc[i:j] == tb.Markdown {
			continue
		}
		if !*update {
			t.Errorf("%s: table %s is stale: run go generate ./internal/scaleout", docPath, tb.Name)
			continue
		}
		doc = doc[:i] + tb.Markdown + doc[j:]
	}
	if *update {
		if err := atomicfile.WriteFile(docPath, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(doc, "<!-- begin "); n != len(Tables()) {
		t.Errorf("%s has %d generated blocks, Tables makes %d", docPath, n, len(Tables()))
	}
}
