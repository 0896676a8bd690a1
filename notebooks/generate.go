// Package notebooks holds the sample notebooks and the Python programs in
// src/ that write them, one program a notebook; src/common.py has what they
// share. After editing a program, regenerate the notebooks with
//
//	go generate ./notebooks
//
// which keeps the outputs of every code cell whose source did not change,
// then run the notebooks whose code changed (pathnotes run) to refresh their
// outputs. TestNotebooksFresh fails when a committed notebook is not what
// its program writes.
package notebooks

//go:generate python3 -B src/00-tour.py
//go:generate python3 -B src/01-karaula-fw.py
//go:generate python3 -B src/02-musap-dijkstra.py
//go:generate python3 -B src/03-bodra-cuda-sp.py
//go:generate python3 -B src/04-gaioso-fw.py
//go:generate python3 -B src/05-apsp-lab.py
//go:generate python3 -B src/05-apsp-lab-solutions.py
