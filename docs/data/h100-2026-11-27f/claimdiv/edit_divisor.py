"""Hand edit, for timing only: the guided claim size of every PTB variant in
the plugin's PTX of train_mlp.cu, `remaining / (2 x workers)`, becomes
`remaining / workers` (div1) or `remaining / (workers / 2)` (divhalf).

    python3 edit_divisor.py IN.ptx div1|divhalf OUT.ptx
"""
import re
import sys

src, mode, dst = sys.argv[1:]
text = open(src).read()
out, count = [], 0
nctaid = None
for line in text.splitlines(keepends=True):
    m = re.match(r"\s*mov\.u32\s+(%r\d+), %nctaid\.x;", line)
    if m:
        nctaid = m.group(1)
    m = re.match(r"(\s*)shl\.b32\s+(%r\d+), (%r\d+), 1;", line)
    if m and m.group(3) == nctaid:
        ind, dstreg = m.group(1), m.group(2)
        if mode == "div1":
            line = f"{ind}mov.b32 \t{dstreg}, {nctaid};\n"
        else:
            line = f"{ind}shr.u32 \t{dstreg}, {nctaid}, 1;\n{ind}max.u32 \t{dstreg}, {dstreg}, 1;\n"
        count += 1
    out.append(line)
open(dst, "w").write("".join(out))
print(f"{dst}: {count} divisors edited")
