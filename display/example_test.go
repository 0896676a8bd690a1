package display_test

import (
	"context"
	"fmt"

	"github.com/pathnotes/pathnotes/cpu"
	"github.com/pathnotes/pathnotes/display"
	"github.com/pathnotes/pathnotes/graph"
)

// DistMatrix shows a distance matrix; Text is its text/plain form, the one
// a terminal or a plain-text front end shows (notebooks get HTML too).
func ExampleDistMatrix() {
	g, err := graph.Example("karaula-fig2.3")
	if err != nil {
		panic(err)
	}
	r, err := cpu.FloydWarshall(context.Background(), g, cpu.FWOptions{Pred: true})
	if err != nil {
		panic(err)
	}
	fmt.Print(display.DistMatrix(r).Text())
	// Output:
	// D (fw-cpu-naive)
	//    a  b  c  d  e
	// a  0  1  3  5  7
	// b  ∞  0  2  4  6
	// c  ∞  3  0  2  4
	// d  ∞  1  3  0  7
	// e  ∞  6  8  5  0
}

// PredMatrix shows Π; OneBased numbers vertices from 1 with NIL, as
// [Karaula 2017] prints it.
func ExamplePredMatrix() {
	g, err := graph.Example("karaula-fig3.1")
	if err != nil {
		panic(err)
	}
	r, err := cpu.FloydWarshall(context.Background(), g, cpu.FWOptions{Pred: true})
	if err != nil {
		panic(err)
	}
	fmt.Print(display.PredMatrix(r).OneBased().Text())
	// Output:
	// Π (fw-cpu-naive)
	//      a    b    c    d    e
	// a  NIL    1    4    1    4
	// b    3  NIL    2    1    4
	// c    3    1  NIL    1    4
	// d    5    5    4  NIL    4
	// e    5    5    2    1  NIL
}

// A cell's value is shown through its MIMEBundle: one entry per MIME type.
func ExampleMatrix_MIMEBundle() {
	m := display.NewMatrix("W", 2, []int32{0, 3, graph.Inf, 0}, display.DistanceCells)
	data, _ := m.MIMEBundle()
	fmt.Println(len(data["text/html"].(string)) > 0)
	fmt.Print(data["text/plain"])
	// Output:
	// true
	// W
	//    0  1
	// 0  0  3
	// 1  ∞  0
}

// BlockedFW draws a round of blocked Floyd-Warshall; Text is the schematic
// in words. Here round 1 of an 8×8 matrix in 4×4 tiles, phase 2 only, with
// a launch of 2×2 blocks of 4×4 threads.
func ExampleBlockedFW() {
	v := display.BlockedFW(8, 4, 1).Phase(2).Launch(2, 2, 4, 4)
	fmt.Println(v.Text())
	// Output:
	// blocked Floyd-Warshall: n = 8, 2×2 tiles of 4, round k = 1, phase 2 (pivot row and column)
	// phase 2 (pivot row and column): (0,1) (1,0)
	// launch 2×2 blocks of 4×4 threads: 64 of 64 cells covered, 0 threads outside
}
