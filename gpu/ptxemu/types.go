package ptxemu

import "fmt"

// Dim3 is the shape of a grid (in blocks) or of a block (in threads), or
// an index within one.
type Dim3 struct{ X, Y, Z int }

// Count returns X·Y·Z.
func (d Dim3) Count() int { return d.X * d.Y * d.Z }

// String formats the value as "(x,y,z)".
func (d Dim3) String() string { return fmt.Sprintf("(%d,%d,%d)", d.X, d.Y, d.Z) }

// unflatten returns the index of linear position i in shape d (x fastest).
func (d Dim3) unflatten(i int) Dim3 {
	return Dim3{i % d.X, i / d.X % d.Y, i / (d.X * d.Y)}
}

// typeKind is the family of a PTX fundamental type.
type typeKind uint8

const (
	kindNone  typeKind = iota
	kindBits           // .b8 .. .b64: untyped bits (read as unsigned)
	kindUint           // .u8 .. .u64
	kindSint           // .s8 .. .s64
	kindFloat          // .f32 .f64 (.f16 is not supported)
	kindPred           // .pred
)

// ptxType is a PTX fundamental type: its family and size in bytes.
type ptxType struct {
	kind typeKind
	size uint8
}

var typeNames = map[string]ptxType{
	"b8": {kindBits, 1}, "b16": {kindBits, 2}, "b32": {kindBits, 4}, "b64": {kindBits, 8},
	"u8": {kindUint, 1}, "u16": {kindUint, 2}, "u32": {kindUint, 4}, "u64": {kindUint, 8},
	"s8": {kindSint, 1}, "s16": {kindSint, 2}, "s32": {kindSint, 4}, "s64": {kindSint, 8},
	"f32": {kindFloat, 4}, "f64": {kindFloat, 8}, "pred": {kindPred, 1},
}

// typeFor looks up a type modifier without its dot ("u32").
func typeFor(s string) (ptxType, bool) {
	t, ok := typeNames[s]
	return t, ok
}

// String gives the type's PTX name without the dot.
func (t ptxType) String() string {
	for name, u := range typeNames {
		if u == t {
			return name
		}
	}
	return "?"
}

func (t ptxType) signed() bool  { return t.kind == kindSint }
func (t ptxType) isFloat() bool { return t.kind == kindFloat }
func (t ptxType) isInt() bool {
	return t.kind == kindBits || t.kind == kindUint || t.kind == kindSint
}
func (t ptxType) bits() uint { return uint(t.size) * 8 }
