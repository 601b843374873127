"""An experiment's PTX edit: hide from ptxas that `%tid.x / 32` is the same in every lane of a
warp, by passing `%tid.x` through `shfl.sync.idx` with each lane's own index (the value is
unchanged; ptxas cannot prove it uniform any more). ptxas then keeps warp-dependent address and
mask arithmetic in vector registers instead of the uniform datapath.

    python3 bench/ptx-opaque-tid.py IN.ptx OUT.ptx

Session 18: tutorial 11's unfused persistent matmul has 58 of its K loop's 121 instructions on
the uniform datapath (Triton 40 of 143) and runs 5–7% behind Triton with twice its dispatch
stalls; this edit gives 34 of 124 (242 registers instead of 216). Time it with
`bench/ptx-assemblers.py t11u TRITIUM.ptx TRITON.ptx 8192 OUT.ptx` on the GPU machine."""
import re
import sys


def main(src, dst):
    text = open(src).read()
    m = re.search(r"\tmov\.u32 \t(%r\d+), %tid\.x;\n", text)
    if not m:
        sys.exit(f"{src}: no `mov.u32 %rN, %tid.x`")
    reg = m.group(1)
    hidden = (f"{m.group(0)}\t{{\n\t.reg .b32 %own_lane;\n\tmov.u32 %own_lane, %laneid;\n"
              f"\tshfl.sync.idx.b32 {reg}, {reg}, %own_lane, 0x1f, 0xffffffff;\n\t}}\n")
    open(dst, "w").write(text.replace(m.group(0), hidden, 1))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
