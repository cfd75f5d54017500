#!/usr/bin/env python3
"""ATen (cuBLAS) against Inductor's best Triton template, GEMM by GEMM.

Compiles one bf16 product per shape with max-autotune (ATen and Triton
candidates) under the Inductor settings given, and prints, per shape, the
best ATen time, the best Triton time, their ratio and the winning Triton
configuration, from Inductor's own autotuning measurements (its feedback
hook). The default shapes are the large GPT's of workloads.py (24 x 1024
tokens, d = 768, vocab 50304): forward, input-gradient and weight-gradient
products.

    python3 bench/torch/gemm_shapes.py [--set KEY=VALUE ...]
        [--shapes M,N,K;M,N,K...] [--json OUT.json]

e.g. --set max_autotune_gemm_search_space=EXHAUSTIVE
     --set triton.enable_persistent_tma_matmul=True
"""
import argparse
import ast
import json
import time

GPT_SHAPES = [
    (24576, 50304, 768),   # LM head
    (24576, 768, 50304),   # its input gradient
    (50304, 768, 24576),   # its weight gradient
    (24576, 2304, 768),    # qkv
    (24576, 3072, 768),    # MLP up
    (24576, 768, 3072),    # MLP down
    (24576, 768, 768),     # attention output
    (3072, 768, 24576),    # a weight gradient
]


def parse_value(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--set", action="append", default=[],
                   help="an Inductor config setting, KEY=VALUE")
    p.add_argument("--shapes", help="M,N,K;M,N,K... (default: the GPT's)")
    p.add_argument("--json")
    args = p.parse_args()

    import torch
    import torch._inductor.config as config
    from torch._inductor import select_algorithm as sa

    config.max_autotune_gemm = True
    config.max_autotune_gemm_backends = "ATEN,TRITON"
    config.force_disable_caches = True
    for item in args.set:
        key, _, value = item.partition("=")
        obj = config
        *path, leaf = key.split(".")
        for part in path:
            obj = getattr(obj, part)
        getattr(obj, leaf)  # an unknown setting fails here, by name
        setattr(obj, leaf, parse_value(value))

    seen = []

    def saver(timings, name, input_nodes, *_):
        seen.append({c: float(t) for c, t in timings.items()})

    sa.add_feedback_saver(saver)
    shapes = ([tuple(int(x) for x in s.split(",")) for s in
               args.shapes.split(";")] if args.shapes else GPT_SHAPES)
    rows = []
    print(f"settings: {args.set or 'max-autotune defaults'}")
    print("| M x N x K | ATen ms | best Triton ms | Triton / ATen | "
          "Triton config | compile s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        torch._dynamo.reset()
        seen.clear()
        f = torch.compile(lambda x, y: x @ y, dynamic=False)
        t0 = time.monotonic()
        f(a, b)
        torch.cuda.synchronize()
        took = time.monotonic() - t0
        if not seen:
            print(f"| {m} x {n} x {k} | no autotuning seen | | | | "
                  f"{took:.0f} |")
            continue
        timings = seen[-1]
        aten = [t for c, t in timings.items()
                if isinstance(c, sa.ExternKernelCaller)]
        triton = sorted(((t, c) for c, t in timings.items()
                         if not isinstance(c, sa.ExternKernelCaller)),
                        key=lambda x: x[0])
        best_a = min(aten) if aten else float("nan")
        best_t, best_c = triton[0] if triton else (float("nan"), None)
        desc = getattr(best_c, "description", "") if best_c else ""
        rows.append({"shape": [m, n, k], "aten_ms": best_a,
                     "triton_ms": best_t, "triton": getattr(best_c, "name", ""),
                     "description": desc, "candidates": len(timings),
                     "compile_s": took})
        print(f"| {m} x {n} x {k} | {best_a:.4f} | {best_t:.4f} | "
              f"{best_t / best_a:.3f} | {desc[:90]} | {took:.0f} |",
              flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"settings": args.set, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
