// Package session runs Go cells for the pathnotes kernel: one yaegi
// interpreter per session, state kept from cell to cell, output streamed to
// the front end, magics, completion, inspection and completeness checks.
// The package knows nothing of Jupyter's wire protocol: the kernel calls it
// through Session, and receives what a cell produces through Output.
//
// # Cells
//
// A cell may mix imports, declarations and statements in any order. The
// session cuts it into top-level items, hoists the imports, and compiles
// runs of declarations (as a file) and of statements (as the body of main)
// in the cell's order; names live in one global scope, so a function may use
// a variable of an earlier cell, and a later cell may declare a variable or
// function again, with another type. Error positions are the cell's own:
// "cell:3:5" is line 3, column 5, columns counting bytes as Go's do.
//
// A cell that ends in an expression shows its value: the MIME bundle of a
// Renderer, or a text form: strings quoted, struct fields named, long
// slices and maps cut after 100 items with their length, a slice of slices
// one row per line, types with a String or Error method through it, several
// values of a call separated by spaces (strconv.Atoi("3") shows 3 <nil>).
// A nil value, a call with no value and a call of fmt.Print* show nothing.
//
// # Output, input, interrupts
//
// os.Stdout and os.Stderr of a cell are pipes read while the cell runs:
// a line printed appears at once, then text is batched every 50 ms.
// Goroutines that print after their cell ended print to the output of the
// latest cell; Display does the same. A cell that closes os.Stdout or
// os.Stderr closes them for itself only: the next cell gets them open.
// os.Stdin is an io.Reader (not an
// *os.File) whose reads, like fmt.Scan, ask Output.Input for a line.
//
// Cancelling Execute's context stops the cell within milliseconds, loops
// included; the session keeps its state. A call into compiled code
// (time.Sleep, a solver) runs on in the background unless it watches a
// context, but nothing of the cell runs after it, and its results do not
// reach the cell's variables: guard.go and split.go tell how, and the few
// forms not covered (a := that defines a new variable beside an existing
// one, a left side that calls a function).
//
// A panic, a runtime error, os.Exit, log.Fatal and runtime.Goexit (on the
// cell's own goroutine) end the cell with a
// CellError whose traceback names the cell (In[n], its execution count:
// see WithExecutionCount), line and column of the failing statement,
// shows that line with a caret, and lists the call chain, outermost
// first, with each function's cell and line, and the compiled functions
// (bound packages, the standard library) the panic went through:
//
//	RuntimeError: assignment to entry in nil map
//	Cell In[2], line 2, column 2:
//	    2 |     m["x"] = 1
//	      |     ^
//	  in main (Cell In[3], line 2)
//	  in fill (Cell In[2], line 2)
//
// (trace.go tells how positions are kept.) A panic of a
// value written with its type (panic(Code(3)), panic(E{...})) names the
// type, or shows the text of its Error or String method. A panic in a
// goroutine started by a cell is reported on stderr. Interpreted calls
// nested deeper than Options.MaxDepth end the cell with a StackOverflow
// error (Go's own stack overflow would kill the kernel).
//
// # Shell commands
//
// A line of a cell that starts with ! (where a Go statement could start) is
// a shell command, run by /bin/sh -c (cmd /C on Windows) between the Go
// before and after it, which run as cells of their own with the cell's line
// numbers; a %%sh or %%bash cell is a script. The command's output streams
// to the cell's as it comes, its stdin is the null device, its directory
// the session's (%pwd, %cd). Cancelling the context ends its process group,
// SIGTERM then SIGKILL; a non-zero exit status is a ShellError.
//
// # Local packages
//
// A cell may import a Go package from a directory, interpreted from its
// source: import "./mylib" (or "../common/mylib") is relative to the
// session's working directory, the notebook's; when a go.mod file at the
// working directory or above declares module example.com/course,
// import "example.com/course/kit" is its directory kit. The
// package's own imports may be the standard library, the packages bound
// into pathnotes (which win over a module path that names them too) and
// other local packages, relative to the package's directory or by module
// path. Its files are those a build for this system uses (build
// constraints and _GOOS/_GOARCH names apply), tests left out; a dot import
// is not allowed. Its init functions run once, when it is first imported.
// Completion and inspection know its exported names and doc comments.
//
// Importing a package again loads it anew when a file of it, or of a local
// package it imports, changed since it was loaded; otherwise it does
// nothing. %reload does the same for every local package the session
// imported, or for those it names. The import name then refers to the new
// version, whose init runs: later cells call its code. What was made
// before keeps the old code: values of its types keep their methods, and
// functions of earlier cells call the old version until their cells run
// again; the old and new types are distinct, so a variable of an old type
// cannot take a new value. The interpreter sees the versions as import
// paths local/NAME, local/NAME@2, ..., which tracebacks show.
//
// Errors name the package's file and line relative to the working
// directory ("mylib/counter.go:12:3: undefined: x"), followed by the
// import of the cell; a path that is not found names the directory and
// where it was looked for. A panic of an init function is a panic with its
// frames.
//
// %run FILE.go runs a Go file as a cell: its package clause is ignored, its
// declarations join the session's, a func main runs, and error positions
// name the file.
//
// # Magics
//
// Every magic is a Magic registered in the session (RegisterMagic), which
// %help lists; a magic is written in the lowest layer that has what it
// needs, and registered by that layer:
//   - the session's own state only (%help, %time, %who, %reset, %env,
//     %reload, %run, %%html and the other MIME cells): magic.go;
//   - the operating system: the working directory and the processes run in
//     it (%cd, %pwd, %%sh, %%bash, and ! lines, which are no magic):
//     shell.go;
//   - the front end's protocol, messages no Go value stands for (%clear,
//     %%display): package kernel (magics.go, kernel.Magics);
//   - the solver packages or the GPU (%gpu, %%cuda, %%ptx, %%profile):
//     package internal/magics, which the program registers (magics.Register).
//
// # Errors
//
// What the session tells of a failed cell is worked out in the explain*.go
// files: compile errors and the words added to the interpreter's misleading
// messages (explain.go; the hints of the interpreter's gaps come from
// package internal/rewrite's registry), runtime errors and panics
// (explain_runtime.go), panics of values of the cell's own types
// (explain_panic.go), and the index and length of an index out of range
// (explain_index.go). Where it happened (the traceback's frames, cells and
// lines) is trace.go's and tracestack.go's.
//
// # What yaegi 0.16.1 lacks
//
// The session works around, or explains, the gaps users meet. Those it
// closes by rewriting the cell's Go (range over integers and functions, the
// generic functions of slices, maps and cmp, type arguments, late
// variables, min and max, switch cases, v, err := in nested blocks) are
// the passes of package internal/rewrite, kept in one registry there
// (passes.go), each with its test table; the others are the session's own:
//   - min and max are defined by the session as generic functions;
//   - a type or a method cannot be redefined (yaegi keeps the first
//     definition silently): declaring it again unchanged is accepted, a
//     different declaration is an error that suggests %reset;
//   - range over an integer or a function (Go 1.22 and 1.23) is rewritten
//     into loops and calls that yaegi runs, on the same lines; a range over
//     a function whose body has a defer, a goto or a labelled branch out of
//     it is an error that says so;
//   - the generic functions of packages slices, maps and cmp, and the types
//     of iter, are the session's own Go (with or without an import);
//   - type arguments that Go infers and yaegi does not (Map(xs, func(x int)
//     string {...}), Sum(1.5, 2)) are written out by the session after a
//     type check of the cell; where that check fails, the error of a call of
//     a generic function suggests writing them out;
//   - clear is missing: the error says so and what to write instead;
//   - a top-level x := y with y undefined is reported as undefined, not as
//     yaegi's "constant definition loop";
//   - var b = a + 1, with a from an earlier cell, runs after the rest of
//     the cell's declarations (yaegi reports a "variable definition loop");
//   - declaring a variable again would keep its old value alive: the
//     session assigns instead when the types allow, and clears the old
//     value otherwise;
//   - a cell that declares func main (a pasted program) runs it;
//   - a loop's variable is shared by its iterations, as before Go 1.22:
//     closures and goroutines made in a loop see its last value unless it
//     is passed as an argument (go func(i int) { ... }(i));
//   - what yaegi keeps of each cell is small but never freed: a few
//     kilobytes, more for a function declared again (its old syntax tree).
package session
