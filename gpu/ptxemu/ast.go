package ptxemu

// The parser turns PTX text into a module of functions whose bodies are
// flat statement lists (instructions, labels, declarations and scope
// marks); decode.go turns those into executable code.

// module is a parsed PTX module. Its .version and .target are read but
// not kept: an instruction too new for the interpreter fails on its own.
type module struct {
	name  string
	vars  []*varDecl // module-scope variables
	funcs []*function
	files map[int]string // .file: the source files .loc names, by number
}

// srcPos is a position in the source the PTX was compiled from, as .loc
// gives it: a file of the module's .file table and a line (0: unknown).
type srcPos struct{ file, line int32 }

// varDecl declares a variable in a state space: .global, .const, .shared
// or .local, at module or function scope.
type varDecl struct {
	space  string
	align  int
	typ    ptxType
	name   string
	count  int  // elements; 1 for a scalar
	extern bool // .extern .shared x[]: dynamic shared memory
	init   []operand
	line   int
}

// bytes is the variable's size.
func (v *varDecl) bytes() int { return v.count * int(v.typ.size) }

// paramDecl is a kernel or function parameter.
type paramDecl struct {
	name  string
	typ   ptxType
	align int
	count int // elements, for .b8 name[N] arrays
}

// function is an .entry (kernel) or a .func.
type function struct {
	name    string
	entry   bool
	line    int
	params  []paramDecl
	maxntid []int // .maxntid / .reqntid limits, when given
	reqntid []int
	body    []stmt
	hasBody bool
}

type stmtKind uint8

const (
	stmtInst stmtKind = iota
	stmtLabel
	stmtReg
	stmtVar
	stmtOpen  // {
	stmtClose // }
)

// regDecl declares one register, or n registers name0..name(n-1) when n > 0.
type regDecl struct {
	typ  ptxType
	name string
	n    int
}

// stmt is one statement of a function body.
type stmt struct {
	kind     stmtKind
	line     int
	guard    string // predicate register of @p / @!p, "" if none
	guardNeg bool
	op       string // opcode with modifiers, e.g. "ld.global.u32"
	args     []operand
	text     string // the instruction as written, for messages
	src      srcPos // the source line of the .loc before it, if any
	label    string
	regs     []regDecl
	v        *varDecl
}

type operandKind uint8

const (
	argWord  operandKind = iota // register, special register, symbol or label
	argNum                      // numeric literal
	argAddr                     // [base+offset]
	argVec                      // {a, b, ...}
	argPair                     // a|b (setp's two destinations)
	argParen                    // (a, b) in call
	argSink                     // _
)

// operand is an instruction argument as written.
type operand struct {
	kind  operandKind
	word  string // the register, symbol, label or literal
	not   bool   // !p
	minus bool   // -literal
	off   int64  // argAddr: the constant offset
	elems []operand
}
