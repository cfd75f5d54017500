"""Rewrites the task loads of every __baton_slice function in a plugin-built
PTX module (loads whose address is the register read from the task
parameter, `.ptr .global .align 128`) with another operation, for an
experiment:

    python3 task_loads.py IN.ptx OUT.ptx ld.global.nc

With `floor` for the operation, the loads become constants for a whole 1-D
grid (grid = the launch's %nctaid.x, begin 0, end %nctaid.x): no read of
the task at all, right only for kernels launched with a 1-D grid whole.
"""
import re
import sys

src, dst, op = sys.argv[1:4]
out, param, task, in_slice, count = [], None, None, False, 0
for line in open(src):
    if line.startswith(".visible .entry"):
        in_slice, param, task = "__baton_slice(" in line, None, None
    if in_slice:
        m = re.match(r"\s*\.param \.u64 \.ptr \.global \.align 128 (\w+)", line)
        if m:
            param = m.group(1)
        m = re.match(r"\s*ld\.param\.b64\s+(%rd\d+), \[(\w+)\];", line)
        if m and m.group(2) == param:
            task = m.group(1)
        if task and re.search(r"ld\.global\.(v4\.)?b32\s.*\[" + re.escape(task) + r"(\+\d+)?\]", line):
            if op != "floor":
                line = line.replace("ld.global.", op + ".", 1)
            elif "v4" in line:
                x, y, z, begin = re.search(r"\{(.*)\}", line).group(1).split(", ")
                line = (f"\tmov.u32 {x}, %nctaid.x;\n\tmov.u32 {y}, 1;\n"
                        f"\tmov.u32 {z}, 1;\n\tmov.u32 {begin}, 0;\n")
            else:
                end = re.search(r"(%r\d+),", line).group(1)
                line = f"\tmov.u32 {end}, %nctaid.x;\n"
            count += 1
    out.append(line)
open(dst, "w").writelines(out)
print(f"{dst}: {count} task loads now {op}")
