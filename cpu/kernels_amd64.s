#include "textflag.h"

// AVX2 kernels of the blocked Floyd-Warshall on int32, eight lanes per
// instruction. Lane semantics are those of the Go loops in fwblocked.go:
// d = min(d, a+b), and with predecessors p = pb where a+b < d strictly.
// Widths are whole multiples of 8 (pivotRows) or exactly 32 (strips), and
// every count is at least 1; the Go callers guarantee both.

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// func pivotRowsAVX2(c, a, b *int32, rows, width, stride int)
// For each of rows rows i (stride elements apart, starting at c and a):
// c_i[j] = min(c_i[j], a_i + b[j]) for j < width.
TEXT ·pivotRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ rows+24(FP), CX
	MOVQ width+32(FP), R8
	MOVQ stride+40(FP), R9
	SHLQ $2, R8
	SHLQ $2, R9
pr_row:
	VPBROADCASTD (SI), Y0
	XORQ AX, AX
pr_loop:
	VPADDD  (DX)(AX*1), Y0, Y1
	VPMINSD (DI)(AX*1), Y1, Y1
	VMOVDQU Y1, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, R8
	JB      pr_loop
	ADDQ    R9, DI
	ADDQ    R9, SI
	DECQ    CX
	JNZ     pr_row
	VZEROUPPER
	RET

// func pivotRowsPredAVX2(c, p, a, b, pb *int32, rows, width, stride int)
// pivotRowsAVX2 that also sets p_i[j] = pb[j] where a_i + b[j] < c_i[j].
TEXT ·pivotRowsPredAVX2(SB), NOSPLIT, $0-64
	MOVQ c+0(FP), DI
	MOVQ p+8(FP), R11
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DX
	MOVQ pb+32(FP), R12
	MOVQ rows+40(FP), CX
	MOVQ width+48(FP), R8
	MOVQ stride+56(FP), R9
	SHLQ $2, R8
	SHLQ $2, R9
prp_row:
	VPBROADCASTD (SI), Y0
	XORQ AX, AX
prp_loop:
	VPADDD   (DX)(AX*1), Y0, Y1  // s = a + b
	VMOVDQU  (DI)(AX*1), Y2      // d
	VPCMPGTD Y1, Y2, Y3          // mask = d > s
	VPTEST   Y3, Y3
	JZ       prp_next            // no lane improves: d and p stay
	VPMINSD  Y1, Y2, Y2
	VMOVDQU  Y2, (DI)(AX*1)
	VMOVDQU  (R11)(AX*1), Y4
	VPBLENDVB Y3, (R12)(AX*1), Y4, Y4
	VMOVDQU  Y4, (R11)(AX*1)
prp_next:
	ADDQ $32, AX
	CMPQ AX, R8
	JB   prp_loop
	ADDQ R9, DI
	ADDQ R9, R11
	ADDQ R9, SI
	DECQ CX
	JNZ  prp_row
	VZEROUPPER
	RET

// func stripAVX2(c, a, b *int32, rows, depth, stride int)
// For each of rows rows i: the 32 lanes c_i[0..31] are held in four
// registers while k runs over depth pivots: c_i[j] = min(c_i[j],
// a_i[k] + b_k[j]), with a_i[k] contiguous and b_k rows stride apart.
TEXT ·stripAVX2(SB), NOSPLIT, $0-48
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ rows+24(FP), R8
	MOVQ depth+32(FP), R10
	MOVQ stride+40(FP), R9
	SHLQ $2, R9
st_row:
	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VMOVDQU 64(DI), Y2
	VMOVDQU 96(DI), Y3
	MOVQ SI, BX
	MOVQ DX, R11
	MOVQ R10, CX
st_k:
	VPBROADCASTD (BX), Y4
	VPADDD  0(R11), Y4, Y5
	VPADDD  32(R11), Y4, Y6
	VPADDD  64(R11), Y4, Y7
	VPADDD  96(R11), Y4, Y8
	VPMINSD Y5, Y0, Y0
	VPMINSD Y6, Y1, Y1
	VPMINSD Y7, Y2, Y2
	VPMINSD Y8, Y3, Y3
	ADDQ $4, BX
	ADDQ R9, R11
	DECQ CX
	JNZ  st_k
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	ADDQ R9, DI
	ADDQ R9, SI
	DECQ R8
	JNZ  st_row
	VZEROUPPER
	RET

// func stripPredAVX2(c, p, a, b, pb *int32, rows, depth, stride int)
// stripAVX2 that also holds the 32 predecessors p_i[0..31] in registers
// and takes pb_k[j] where a_i[k] + b_k[j] < c_i[j], in pivot order.
TEXT ·stripPredAVX2(SB), NOSPLIT, $0-64
	MOVQ c+0(FP), DI
	MOVQ p+8(FP), R13
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DX
	MOVQ pb+32(FP), R12
	MOVQ rows+40(FP), R8
	MOVQ depth+48(FP), R10
	MOVQ stride+56(FP), R9
	SHLQ $2, R9
sp_row:
	VMOVDQU 0(DI), Y0
	VMOVDQU 32(DI), Y1
	VMOVDQU 64(DI), Y2
	VMOVDQU 96(DI), Y3
	VMOVDQU 0(R13), Y4
	VMOVDQU 32(R13), Y5
	VMOVDQU 64(R13), Y6
	VMOVDQU 96(R13), Y7
	MOVQ SI, BX
	MOVQ DX, R11
	MOVQ R12, R14
	MOVQ R10, CX
sp_k:
	VPBROADCASTD (BX), Y8
	VPADDD    0(R11), Y8, Y9
	VPCMPGTD  Y9, Y0, Y10
	VPMINSD   Y9, Y0, Y0
	VPBLENDVB Y10, 0(R14), Y4, Y4
	VPADDD    32(R11), Y8, Y11
	VPCMPGTD  Y11, Y1, Y12
	VPMINSD   Y11, Y1, Y1
	VPBLENDVB Y12, 32(R14), Y5, Y5
	VPADDD    64(R11), Y8, Y13
	VPCMPGTD  Y13, Y2, Y14
	VPMINSD   Y13, Y2, Y2
	VPBLENDVB Y14, 64(R14), Y6, Y6
	VPADDD    96(R11), Y8, Y9
	VPCMPGTD  Y9, Y3, Y10
	VPMINSD   Y9, Y3, Y3
	VPBLENDVB Y10, 96(R14), Y7, Y7
	ADDQ $4, BX
	ADDQ R9, R11
	ADDQ R9, R14
	DECQ CX
	JNZ  sp_k
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VMOVDQU Y4, 0(R13)
	VMOVDQU Y5, 32(R13)
	VMOVDQU Y6, 64(R13)
	VMOVDQU Y7, 96(R13)
	ADDQ R9, DI
	ADDQ R9, R13
	ADDQ R9, SI
	DECQ R8
	JNZ  sp_row
	VZEROUPPER
	RET

// func strip8AVX2(c, a, b *int32, rows, depth, stride int)
// stripAVX2 for 8 lanes, for the columns of a tile left over after the
// 32-lane strips.
TEXT ·strip8AVX2(SB), NOSPLIT, $0-48
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ rows+24(FP), R8
	MOVQ depth+32(FP), R10
	MOVQ stride+40(FP), R9
	SHLQ $2, R9
s8_row:
	VMOVDQU (DI), Y0
	MOVQ SI, BX
	MOVQ DX, R11
	MOVQ R10, CX
s8_k:
	VPBROADCASTD (BX), Y4
	VPADDD  (R11), Y4, Y5
	VPMINSD Y5, Y0, Y0
	ADDQ $4, BX
	ADDQ R9, R11
	DECQ CX
	JNZ  s8_k
	VMOVDQU Y0, (DI)
	ADDQ R9, DI
	ADDQ R9, SI
	DECQ R8
	JNZ  s8_row
	VZEROUPPER
	RET

// func strip8PredAVX2(c, p, a, b, pb *int32, rows, depth, stride int)
// stripPredAVX2 for 8 lanes.
TEXT ·strip8PredAVX2(SB), NOSPLIT, $0-64
	MOVQ c+0(FP), DI
	MOVQ p+8(FP), R13
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DX
	MOVQ pb+32(FP), R12
	MOVQ rows+40(FP), R8
	MOVQ depth+48(FP), R10
	MOVQ stride+56(FP), R9
	SHLQ $2, R9
s8p_row:
	VMOVDQU (DI), Y0
	VMOVDQU (R13), Y4
	MOVQ SI, BX
	MOVQ DX, R11
	MOVQ R12, R14
	MOVQ R10, CX
s8p_k:
	VPBROADCASTD (BX), Y8
	VPADDD    (R11), Y8, Y9
	VPCMPGTD  Y9, Y0, Y10
	VPMINSD   Y9, Y0, Y0
	VPBLENDVB Y10, (R14), Y4, Y4
	ADDQ $4, BX
	ADDQ R9, R11
	ADDQ R9, R14
	DECQ CX
	JNZ  s8p_k
	VMOVDQU Y0, (DI)
	VMOVDQU Y4, (R13)
	ADDQ R9, DI
	ADDQ R9, R13
	ADDQ R9, SI
	DECQ R8
	JNZ  s8p_row
	VZEROUPPER
	RET
