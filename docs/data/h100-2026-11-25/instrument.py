#!/usr/bin/env python3
"""Throwaway probe (not committed): stamps each PTB slot with the leader's
fetch sequence number and makes every thread check, at the loop head, that
the slot it reads carries the sequence number it expects. A mismatch (a slot
read before the leader wrote it for this block) is printed with vprintf.
Only for 1-D kernels: the slot's fourth word is the stamp."""
import re, sys

src, dst, kernel = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(src).read()
fmt = b"DBG worker=%u tid=%u it=%u seq=%u v=%u x=%u parity=%u end=%u\n\0"
decl = (
    ".extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n"
    ".global .align 1 .b8 dbg_fmt[%d] = {%s};\n" % (len(fmt), ",".join(str(b) for b in fmt)))
# after the last .address_size/.target line
m = list(re.finditer(r"^\.address_size.*$", text, re.M))[-1]
text = text[:m.end()] + "\n" + decl + text[m.end():]
start = text.index(".entry " + kernel + "(")
end = text.index("\n}\n", start)
body = text[start:end]
body = body.replace("\t.reg .b64 %baton_task;",
    "\t.reg .b64 %baton_task;\n\t.reg .b32 %dbg_it, %dbg_seq, %dbg_w, %dbg_t;\n"
    "\t.reg .pred %dbg_bad;\n\t.reg .b64 %dbg_f, %dbg_l;\n\t.local .align 8 .b8 dbg_local[32];", 1)
body = body.replace("\tmov.u32 %baton_parity, 0;", "\tmov.u32 %baton_parity, 0;\n\tmov.u32 %dbg_it, 0;", 1)
n_st = len(re.findall(r"\tst\.shared\.v4\.u32 \[%baton_addr\], \{[^}]*\};", body))
body = re.sub(r"(\tst\.shared\.v4\.u32 \[%baton_addr\], \{[^}]*\};)",
              r"\1\n\tst.shared.u32 [%baton_addr+12], %dbg_it;", body)
loadhead = re.search(r"\tld\.shared\.v4\.u32 \{%baton_v, [^}]*\}, \[%baton_addr\];", body)
check = """
	ld.shared.u32 %dbg_seq, [%baton_addr+12];
	setp.ne.u32 %dbg_bad, %dbg_seq, %dbg_it;
	add.u32 %dbg_it, %dbg_it, 1;
	@!%dbg_bad bra $dbg_ok;
	mov.u32 %dbg_w, %ctaid.x;
	mov.u32 %dbg_t, %tid.x;
	mov.u64 %dbg_l, dbg_local;
	st.local.u32 [dbg_local+0], %dbg_w;
	st.local.u32 [dbg_local+4], %dbg_t;
	sub.u32 %dbg_t, %dbg_it, 1;
	st.local.u32 [dbg_local+8], %dbg_t;
	st.local.u32 [dbg_local+12], %dbg_seq;
	st.local.u32 [dbg_local+16], %baton_v;
	st.local.u32 [dbg_local+20], %baton_ctaid_x;
	st.local.u32 [dbg_local+24], %baton_parity;
	st.local.u32 [dbg_local+28], %baton_end;
	cvta.local.u64 %dbg_l, %dbg_l;
	mov.u64 %dbg_f, dbg_fmt;
	cvta.global.u64 %dbg_f, %dbg_f;
	{
	.param .b64 p0;
	st.param.b64 [p0], %dbg_f;
	.param .b64 p1;
	st.param.b64 [p1], %dbg_l;
	.param .b32 r;
	call (r), vprintf, (p0, p1);
	}
$dbg_ok:"""
assert loadhead and n_st >= 2, (loadhead, n_st)
body = body[:loadhead.end()] + check + body[loadhead.end():]
text = text[:start] + body + text[end:]
open(dst, "w").write(text)
print(f"instrumented {kernel}: {n_st} slot stores", file=sys.stderr)
