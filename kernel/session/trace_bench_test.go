package session

import (
	"context"
	"testing"
)

// benchCell runs code b.N times in one session.
func benchCell(b *testing.B, setup, code string) {
	s := newSession(b)
	if setup != "" {
		run(b, s, setup)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Execute(context.Background(), code, newRecorder()); err != nil {
			b.Fatal(err)
		}
	}
}

// The cost of the site markers (trace.go) on tight loops: a loop whose
// body cannot panic gets none, one that indexes gets one per iteration, a
// call one per call.
func BenchmarkLoopSum(b *testing.B) {
	benchCell(b, "", "s := 0\nfor i := 0; i < 1000000; i++ {\n\ts += i\n}")
}

func BenchmarkLoopIndex(b *testing.B) {
	benchCell(b, "", "xs := make([]int, 64)\nfor i := 0; i < 1000000; i++ {\n\txs[i&63] += i\n}")
}

func BenchmarkLoopIndexInFunc(b *testing.B) {
	benchCell(b, "func fill(xs []int) {\n\tfor i := 0; i < 1000000; i++ {\n\t\txs[i&63] += i\n\t}\n}", "fill(make([]int, 64))")
}

func BenchmarkCalls(b *testing.B) {
	benchCell(b, "func fib(n int) int {\n\tif n < 2 {\n\t\treturn n\n\t}\n\treturn fib(n-1) + fib(n-2)\n}", "fib(20)")
}
