"""Forty-first session: hand-edited forms of recursive_fib's PTB variant.

  fib_variants.py XFORMED_PTX OUTDIR

XFORMED_PTX is the fortieth session's transformed calls.ptx (nvcc), whose
recursive_fib__baton_ptb hangs. Writes one module per form to OUTDIR:
  asis      unchanged
  endsync   bar.warp.sync -1 where the body ends ($baton_next:), before the
            late claim and the end-of-block barrier
  callsync  bar.warp.sync -1 after every call in the kernel's body
  topsync   bar.warp.sync -1 at the top of the loop ($baton_loop:)
  hoisted   the body's declarations (.local depot, .reg) moved from after
            $baton_body: to the top of the kernel
"""
import re
import sys

src, out = sys.argv[1], sys.argv[2]
text = open(src).read()
start = text.index(".visible .entry recursive_fib__baton_ptb(")
end = text.index("\n}\n", start) + 3
head, kernel, tail = text[:start], text[start:end], text[end:]


def write(name, body):
    open(f"{out}/{name}.ptx", "w").write(head + body + tail)


write("asis", kernel)
write("endsync", kernel.replace("$baton_next:\n", "$baton_next:\n\tbar.warp.sync -1;\n", 1))
write("topsync", kernel.replace("$baton_loop:\n", "$baton_loop:\n\tbar.warp.sync -1;\n", 1))
calls = re.sub(r"(call\.uni \(retval0\), _Z3fibi, \(param0\);\n\t\tld\.param\.b32 %r\d+, \[retval0\+0\];\n\t\})\n",
               r"\1\n\tbar.warp.sync -1;\n", kernel)
assert calls.count("bar.warp.sync") == 16, calls.count("bar.warp.sync")
write("callsync", calls)

body_at = kernel.index("$baton_body:\n") + len("$baton_body:\n")
lines = kernel[body_at:].split("\n")
decls = [l for l in lines[:8] if l.startswith("\t.local") or l.startswith("\t.reg")]
rest = kernel[body_at:]
for l in decls:
    rest = rest.replace(l + "\n", "", 1)
top = kernel.index("{\n") + 2
assert len(decls) == 5, decls
write("hoisted", kernel[:top] + "\n".join(decls) + "\n" + kernel[top:body_at] + rest)
