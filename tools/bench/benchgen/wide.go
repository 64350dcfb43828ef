// wide.go - the 64 functions of BENCHGEN_WIDE stacks (main.go): each
// calls step, which calls the next one the id picks. They are called
// through the table only, so none is inlined.
package main

var wide [64]func(id, depth int)

// Set in init: step, which the functions call, reads the table.
func init() {
	wide = [64]func(id, depth int){
		w00, w01, w02, w03, w04, w05, w06, w07,
		w08, w09, w10, w11, w12, w13, w14, w15,
		w16, w17, w18, w19, w20, w21, w22, w23,
		w24, w25, w26, w27, w28, w29, w30, w31,
		w32, w33, w34, w35, w36, w37, w38, w39,
		w40, w41, w42, w43, w44, w45, w46, w47,
		w48, w49, w50, w51, w52, w53, w54, w55,
		w56, w57, w58, w59, w60, w61, w62, w63,
	}
}

func w00(id, depth int) { step(id, depth) }
func w01(id, depth int) { step(id, depth) }
func w02(id, depth int) { step(id, depth) }
func w03(id, depth int) { step(id, depth) }
func w04(id, depth int) { step(id, depth) }
func w05(id, depth int) { step(id, depth) }
func w06(id, depth int) { step(id, depth) }
func w07(id, depth int) { step(id, depth) }
func w08(id, depth int) { step(id, depth) }
func w09(id, depth int) { step(id, depth) }
func w10(id, depth int) { step(id, depth) }
func w11(id, depth int) { step(id, depth) }
func w12(id, depth int) { step(id, depth) }
func w13(id, depth int) { step(id, depth) }
func w14(id, depth int) { step(id, depth) }
func w15(id, depth int) { step(id, depth) }
func w16(id, depth int) { step(id, depth) }
func w17(id, depth int) { step(id, depth) }
func w18(id, depth int) { step(id, depth) }
func w19(id, depth int) { step(id, depth) }
func w20(id, depth int) { step(id, depth) }
func w21(id, depth int) { step(id, depth) }
func w22(id, depth int) { step(id, depth) }
func w23(id, depth int) { step(id, depth) }
func w24(id, depth int) { step(id, depth) }
func w25(id, depth int) { step(id, depth) }
func w26(id, depth int) { step(id, depth) }
func w27(id, depth int) { step(id, depth) }
func w28(id, depth int) { step(id, depth) }
func w29(id, depth int) { step(id, depth) }
func w30(id, depth int) { step(id, depth) }
func w31(id, depth int) { step(id, depth) }
func w32(id, depth int) { step(id, depth) }
func w33(id, depth int) { step(id, depth) }
func w34(id, depth int) { step(id, depth) }
func w35(id, depth int) { step(id, depth) }
func w36(id, depth int) { step(id, depth) }
func w37(id, depth int) { step(id, depth) }
func w38(id, depth int) { step(id, depth) }
func w39(id, depth int) { step(id, depth) }
func w40(id, depth int) { step(id, depth) }
func w41(id, depth int) { step(id, depth) }
func w42(id, depth int) { step(id, depth) }
func w43(id, depth int) { step(id, depth) }
func w44(id, depth int) { step(id, depth) }
func w45(id, depth int) { step(id, depth) }
func w46(id, depth int) { step(id, depth) }
func w47(id, depth int) { step(id, depth) }
func w48(id, depth int) { step(id, depth) }
func w49(id, depth int) { step(id, depth) }
func w50(id, depth int) { step(id, depth) }
func w51(id, depth int) { step(id, depth) }
func w52(id, depth int) { step(id, depth) }
func w53(id, depth int) { step(id, depth) }
func w54(id, depth int) { step(id, depth) }
func w55(id, depth int) { step(id, depth) }
func w56(id, depth int) { step(id, depth) }
func w57(id, depth int) { step(id, depth) }
func w58(id, depth int) { step(id, depth) }
func w59(id, depth int) { step(id, depth) }
func w60(id, depth int) { step(id, depth) }
func w61(id, depth int) { step(id, depth) }
func w62(id, depth int) { step(id, depth) }
func w63(id, depth int) { step(id, depth) }
