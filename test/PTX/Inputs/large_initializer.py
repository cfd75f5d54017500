"""Prints a PTX module whose global has an initializer of N elements
(default 70,000: more than a 16-bit count holds)."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 70000
print(".version 8.0")
print(".target sm_90")
print(".address_size 64")
print(f".global .align 4 .b8 table[{n}] = {{"
      + ", ".join(str(i % 256) for i in range(n)) + "};")
print(f""".visible .entry k(.param .u64 p)
{{
.reg .b32 %r<2>;
.reg .b64 %rd<3>;
ld.param.u64 %rd1, [p];
ld.global.u8 %r1, [table+{n - 1}];
st.global.u32 [%rd1], %r1;
ret;
}}""")
