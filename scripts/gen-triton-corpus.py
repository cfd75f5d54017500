#!/usr/bin/env python3
"""gen-triton-corpus.py - add Triton-generated PTX to Baton's test corpus.

Triton is one of the PTX producers baton-ptx must handle, and its PTX looks
nothing like nvcc's or clang's: wgmma / TMA / mbarrier pipelines, hidden
scratch-pointer parameters, specialised-away arguments, .loc/.file line
info and DWARF sections. This script compiles a fixed set of ~25 Triton
kernels for the GPU it runs on and writes

  OUTDIR/triton/NAME.ptx        the PTX exactly as Triton produced it
  OUTDIR/triton/NAME.json       launch metadata Triton reported (for humans)
  OUTDIR/triton-manifest.txt    one launch line per kernel, same format as
                                test/corpus/manifest.txt:
      MODULE KERNEL GX,GY,GZ BX,BY,BZ DYN_SMEM_BYTES PARAM...

Each kernel is launched once through Triton (which compiles it), then the
manifest line is derived from what Triton actually built:
  * grid: the grid we launched with; block: metadata.num_warps * 32;
    DYN_SMEM: metadata.shared (Triton's shared memory is all dynamic);
  * params: the runtime arguments that survive specialisation, in order
    (constexprs are gone; integer arguments equal to 1 are specialised into
    constants by Triton and vanish from the .entry; None is dropped), then
    the hidden trailing pointer parameters Triton appends (global_scratch,
    and profile_scratch in newer releases), described as `in:u8:N` with N =
    scratch bytes per program * number of programs (at least 256).
  The result is checked against the PTX .entry signature (count and byte
  width of every parameter; names when the TTIR carries them) and a kernel
  whose line cannot be proven right gets a `# not launchable: reason` comment
  instead of a guess. Kernels taking host-built TMA descriptors (CUtensorMap
  passed by value, `.param .align 64 .b8 x[128]`) are never launchable from
  the manifest and are written with such a comment.

With --arch smNN (sm80, sm100...) the same kernels are compiled, not run,
for another architecture (the capability Triton's driver reports is
replaced), into OUTDIR/triton-smNN/, with OUTDIR/triton-smNN-manifest.txt
when this GPU can run that architecture's PTX (sm80 on an H100; not
sm100). Kernels that need a newer architecture fail to compile and are
left out.

Usage:
  python3 scripts/gen-triton-corpus.py OUTDIR     (e.g. OUTDIR = test/corpus)
  python3 scripts/gen-triton-corpus.py OUTDIR --arch sm80
  python3 scripts/gen-triton-corpus.py --check    (print Triton's version)
  python3 scripts/gen-triton-corpus.py OUTDIR --only matmul   (substring filter)
Then: python3 test/corpus/check-manifest.py OUTDIR OUTDIR/triton-manifest.txt

Written for Triton 3.6 / PyTorch 2.11 on sm_90 (H100/H200); every kernel is
compiled inside try/except, one status line is printed per kernel, and the
exit status is 0 when all the simple kernels (no tl.dot) succeeded.
"""

import argparse
import io
import json
import math
import os
import re
import sys
import traceback

import triton
import triton.language as tl

# ---------------------------------------------------------------------------
# Kernels. Plain, realistic Triton as found in tutorials and model code.


@triton.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def bias_gelu_bf16_kernel(x_ptr, bias_ptr, y_ptr, n_elements, n_cols, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(bias_ptr + offs % n_cols, mask=mask, other=0.0).to(tl.float32)
    v = x + b
    y = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(y_ptr + offs, y.to(tl.bfloat16), mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    # Fewer programs than rows: each program strides over rows by the grid size.
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row in tl.range(row_start, n_rows, row_step):
        offs = tl.arange(0, BLOCK_SIZE)
        mask = offs < n_cols
        x = tl.load(in_ptr + row * in_row_stride + offs, mask=mask, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        den = tl.sum(num, axis=0)
        tl.store(out_ptr + row * out_row_stride + offs, num / den, mask=mask)


@triton.jit
def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        _mean += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y.to(Y.dtype.element_ty), mask=mask)


@triton.jit
def bias_relu_2d_kernel(x_ptr, b_ptr, y_ptr, M, N, stride_xm, stride_ym,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :], mask=mask, other=0.0)
    b = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    y = tl.maximum(x + b[None, :], 0.0)
    tl.store(y_ptr + rm[:, None] * stride_ym + rn[None, :], y, mask=mask)


@triton.jit
def batched_row_scale_3d_kernel(x_ptr, s_ptr, y_ptr, M, N, BLOCK_N: tl.constexpr):
    # grid = (cdiv(N, BLOCK_N), M, batch): program_id(1) and program_id(2) too.
    pid_n = tl.program_id(0)
    m = tl.program_id(1)
    b = tl.program_id(2)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = rn < N
    base = (b * M + m) * N
    s = tl.load(s_ptr + b * M + m)
    x = tl.load(x_ptr + base + rn, mask=mask, other=0.0)
    tl.store(y_ptr + base + rn, x * s, mask=mask)


@triton.jit
def block_sum_kernel(x_ptr, partial_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(partial_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def histogram_atomic_kernel(x_ptr, hist_ptr, n, NBINS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + (x & (NBINS - 1)), 1, mask=mask)  # int32: order-independent


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def matmul_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr):
    # One program per SM loops over output tiles (no autotuning).
    start_pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_M * num_pid_n
    for tile_id in range(start_pid, num_tiles, NUM_SMS):
        group_id = tile_id // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + (tile_id % group_size_m)
        pid_n = (tile_id % num_pid_in_group) // group_size_m
        offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_K + tl.arange(0, BLOCK_K)
            a = tl.load(a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak,
                        mask=offs_k[None, :] < K, other=0.0)
            b = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn,
                        mask=offs_k[:, None] < K, other=0.0)
            acc = tl.dot(a, b, acc)
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty),
                 mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def matmul_tma_device_desc_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                  BLOCK_K: tl.constexpr):
    # Descriptors built on the device (stored in Triton's global scratch).
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_desc.dtype))


@triton.jit
def matmul_tma_host_desc_kernel(a_desc, b_desc, c_desc, K, BLOCK_K: tl.constexpr):
    # Descriptors built on the host (CUtensorMap passed by value).
    BLOCK_M: tl.constexpr = a_desc.block_shape[0]
    BLOCK_N: tl.constexpr = b_desc.block_shape[1]
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_desc.dtype))


@triton.jit
def attention_fwd_kernel(Q, K, V, O, L, sm_scale, stride_h, stride_m, N_CTX,
                         HEAD: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                         CAUSAL: tl.constexpr):
    # Flash-attention forward (online softmax), one program per BLOCK_M query
    # rows of one (batch, head); ragged N_CTX masks the last rows and columns.
    start_m = tl.program_id(0)
    base = tl.program_id(1) * stride_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD)
    q = tl.load(Q + base + offs_m[:, None] * stride_m + offs_d[None, :],
                mask=offs_m[:, None] < N_CTX, other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD], tl.float32)
    hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX) if CAUSAL else N_CTX
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(K + base + cols[None, :] * stride_m + offs_d[:, None],
                    mask=cols[None, :] < N_CTX, other=0.0)
        s = tl.dot(q, k) * sm_scale
        keep = cols[None, :] < N_CTX
        if CAUSAL:
            keep = keep & (offs_m[:, None] >= cols[None, :])
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2((s - m_new[:, None]) * 1.4426950408889634)
        alpha = tl.math.exp2((m_i - m_new) * 1.4426950408889634)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + base + cols[:, None] * stride_m + offs_d[None, :],
                    mask=cols[:, None] < N_CTX, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    tl.store(L + tl.program_id(1) * N_CTX + offs_m, m_i + tl.log(l_i), mask=offs_m < N_CTX)
    tl.store(O + base + offs_m[:, None] * stride_m + offs_d[None, :],
             (acc / l_i[:, None]).to(O.dtype.element_ty), mask=offs_m[:, None] < N_CTX)


@triton.jit
def attention_fwd_tma_kernel(Q, K, V, O, sm_scale, N_CTX, ROWS, HEAD: tl.constexpr,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # The same through device-built TMA descriptors over all heads' rows
    # (N_CTX a multiple of both blocks), with a pipelined K/V loop.
    qd = tl.make_tensor_descriptor(Q, shape=[ROWS, HEAD], strides=[HEAD, 1], block_shape=[BLOCK_M, HEAD])
    kd = tl.make_tensor_descriptor(K, shape=[ROWS, HEAD], strides=[HEAD, 1], block_shape=[BLOCK_N, HEAD])
    vd = tl.make_tensor_descriptor(V, shape=[ROWS, HEAD], strides=[HEAD, 1], block_shape=[BLOCK_N, HEAD])
    od = tl.make_tensor_descriptor(O, shape=[ROWS, HEAD], strides=[HEAD, 1], block_shape=[BLOCK_M, HEAD])
    head_row = tl.program_id(1) * N_CTX
    q = qd.load([head_row + tl.program_id(0) * BLOCK_M, 0])
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD], tl.float32)
    for start_n in tl.range(0, N_CTX, BLOCK_N, num_stages=3):
        s = tl.dot(q, kd.load([head_row + start_n, 0]).T) * sm_scale
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2((s - m_new[:, None]) * 1.4426950408889634)
        alpha = tl.math.exp2((m_i - m_new) * 1.4426950408889634)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = tl.dot(p.to(tl.float16), vd.load([head_row + start_n, 0]), acc * alpha[:, None])
        m_i = m_new
    od.store([head_row + tl.program_id(0) * BLOCK_M, 0], (acc / l_i[:, None]).to(tl.float16))


@triton.jit
def attention_bwd_dkdv_kernel(Q, K, V, DO, L, D, DK, DV, sm_scale, stride_h, stride_m, N_CTX,
                              HEAD: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Flash-attention backward, the dK/dV half: one program per BLOCK_N keys,
    # looping over every query block with four products per step.
    base = tl.program_id(1) * stride_h
    rows = tl.program_id(1) * N_CTX
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD)
    k = tl.load(K + base + offs_n[:, None] * stride_m + offs_d[None, :])
    v = tl.load(V + base + offs_n[:, None] * stride_m + offs_d[None, :])
    dk = tl.zeros([BLOCK_N, HEAD], tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD], tl.float32)
    for start_m in range(0, N_CTX, BLOCK_M):
        offs_m = start_m + tl.arange(0, BLOCK_M)
        q = tl.load(Q + base + offs_m[:, None] * stride_m + offs_d[None, :])
        do = tl.load(DO + base + offs_m[:, None] * stride_m + offs_d[None, :])
        p = tl.math.exp(tl.dot(k, tl.trans(q)) * sm_scale - tl.load(L + rows + offs_m)[None, :])
        dv += tl.dot(p.to(tl.float16), do)
        ds = p * (tl.dot(v, tl.trans(do)) - tl.load(D + rows + offs_m)[None, :])
        dk += tl.dot(ds.to(tl.float16), q)
    tl.store(DK + base + offs_n[:, None] * stride_m + offs_d[None, :], (dk * sm_scale).to(tl.float16))
    tl.store(DV + base + offs_n[:, None] * stride_m + offs_d[None, :], dv.to(tl.float16))


@triton.jit
def matmul_tma_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                                 BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                 NUM_SMS: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    # Persistent programs over output tiles (flattened loop), device-built
    # descriptors; B is N x K (a weight), as in a linear layer.
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    tiles_n = tl.cdiv(N, BLOCK_N)
    num_tiles = tl.cdiv(M, BLOCK_M) * tiles_n
    for tile in tl.range(tl.program_id(0), num_tiles, NUM_SMS, flatten=True,
                         warp_specialize=WARP_SPECIALIZE):
        pid_m = tile // tiles_n
        pid_n = tile % tiles_n
        acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
        for k in range(tl.cdiv(K, BLOCK_K)):
            a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
            b = b_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


@triton.jit
def matmul_fp8_kernel(a_ptr, b_ptr, c_ptr, M, N, K, scale_a, scale_b, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # e4m3 operands, fp32 accumulation scaled per tensor, fp16 result.
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    group = GROUP_M * num_pid_n
    first_m = (pid // group) * GROUP_M
    size_m = min(tl.cdiv(M, BLOCK_M) - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % size_m
    pid_n = (pid % group) // size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=rm[:, None] < M, other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=rn[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], (acc * scale_a * scale_b).to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def dropout_philox_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    # Counter-based random numbers: the same mask whatever order blocks run in.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def locked_group_sum_kernel(x_ptr, sums_ptr, locks_ptr, N, GROUPS: tl.constexpr, BLOCK_N: tl.constexpr):
    # Rows add into one of GROUPS partial rows under a spin lock, as Triton's
    # layer-norm backward does for dW (integers here, so any order gives the
    # same sums). locks_ptr holds GROUPS locks, then GROUPS marks of a partial
    # row written; the manifest clears it (`zero`) before every run.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0) * 3 + cols
    g = row % GROUPS
    lock = locks_ptr + g
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    sums = sums_ptr + g * N + cols
    if tl.load(locks_ptr + GROUPS + g) == 0:
        tl.atomic_xchg(locks_ptr + GROUPS + g, 1)
    else:
        x += tl.load(sums, mask=mask)
    tl.store(sums, x, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


@triton.jit
def sort_scan_gather_kernel(x_ptr, idx_ptr, out_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    # Block-wide sort, scan, gather, argmax and histogram, and a line of
    # inline PTX: the shared-memory shuffles Triton lowers them to.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    i = tl.load(idx_ptr + offs, mask=mask, other=0) & (BLOCK - 1)
    e = tl.inline_asm_elementwise("ex2.approx.ftz.f32 $0, $1;", "=r,r", [x], dtype=tl.float32,
                                  is_pure=True, pack=1)
    y = tl.sort(x) + tl.cumsum(x, 0) + tl.gather(x, i, 0) + e + tl.argmax(x, 0).to(tl.float32)
    tl.atomic_add(hist_ptr + tl.arange(0, BLOCK), tl.histogram(i, BLOCK), sem="relaxed")
    tl.store(out_ptr + offs, y, mask=mask)


@triton.jit
def fp64_libdevice_3d_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    # f64 through libdevice over a 3-D grid, indexed with num_programs.
    flat = (tl.program_id(2) * tl.num_programs(1) + tl.program_id(1)) * tl.num_programs(0) + tl.program_id(0)
    offs = flat * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.extra.cuda.libdevice.tanh(x) + tl.sqrt(x * x + 1.0))


# ---------------------------------------------------------------------------
# Launch descriptions.


class Buf:
    """A tensor argument and how the manifest describes it (in/out/inout/zero)."""

    def __init__(self, kind, tensor):
        self.kind, self.tensor = kind, tensor


class Spec:
    def __init__(self, name, fn, grid, args, meta, simple, launchable=True, reason=""):
        self.name, self.fn, self.grid, self.args, self.meta = name, fn, grid, args, meta
        self.simple, self.launchable, self.reason = simple, launchable, reason


def cdiv(a, b):
    return (a + b - 1) // b


def make_specs(torch, dev):
    g = torch.Generator(device=dev)
    g.manual_seed(1234)

    def rnd(*shape, dtype=torch.float32):
        return (torch.rand(*shape, device=dev, generator=g, dtype=torch.float32) * 2 - 1).to(dtype)

    def rint(n, lo=-1000, hi=1000):
        return torch.randint(lo, hi, (n,), device=dev, generator=g, dtype=torch.int32)

    def empty(*shape, dtype=torch.float32):
        return torch.empty(*shape, device=dev, dtype=dtype)

    specs = []

    n = 1000003
    specs.append(Spec("vector_add", vector_add_kernel, (cdiv(n, 1024),),
                      [Buf("in", rnd(n)), Buf("in", rnd(n)), Buf("out", empty(n)), n],
                      dict(BLOCK_SIZE=1024, num_warps=4), simple=True))

    rows, cols = 1531, 769
    specs.append(Spec("bias_gelu_bf16", bias_gelu_bf16_kernel, (cdiv(rows * cols, 2048),),
                      [Buf("in", rnd(rows * cols, dtype=torch.bfloat16)),
                       Buf("in", rnd(cols, dtype=torch.bfloat16)),
                       Buf("out", empty(rows * cols, dtype=torch.bfloat16)), rows * cols, cols],
                      dict(BLOCK_SIZE=2048, num_warps=8), simple=True))

    rows, cols = 1823, 781
    specs.append(Spec("softmax", softmax_kernel, (400,),
                      [Buf("out", empty(rows, cols)), Buf("in", rnd(rows, cols)), cols, cols, rows, cols],
                      dict(BLOCK_SIZE=triton.next_power_of_2(cols), num_warps=8), simple=True))

    M, N = 1151, 1000
    specs.append(Spec("layer_norm_fwd", layer_norm_fwd_kernel, (M,),
                      [Buf("in", rnd(M, N, dtype=torch.float16)), Buf("out", empty(M, N, dtype=torch.float16)),
                       Buf("in", rnd(N, dtype=torch.float16)), Buf("in", rnd(N, dtype=torch.float16)),
                       Buf("out", empty(M)), Buf("out", empty(M)), N, N, 1e-5],
                      dict(BLOCK_SIZE=256, num_warps=4), simple=True))

    M, N = 1000, 777
    specs.append(Spec("bias_relu_2d", bias_relu_2d_kernel, (cdiv(M, 32), cdiv(N, 64)),
                      [Buf("in", rnd(M, N)), Buf("in", rnd(N)), Buf("out", empty(M, N)), M, N, N, N],
                      dict(BLOCK_M=32, BLOCK_N=64, num_warps=4), simple=True))

    B, M, N = 7, 45, 1000
    specs.append(Spec("batched_row_scale_3d", batched_row_scale_3d_kernel, (cdiv(N, 256), M, B),
                      [Buf("in", rnd(B * M * N)), Buf("in", rnd(B * M)), Buf("out", empty(B * M * N)), M, N],
                      dict(BLOCK_N=256, num_warps=2), simple=True))

    n = 1000003
    specs.append(Spec("block_sum", block_sum_kernel, (cdiv(n, 2048),),
                      [Buf("in", rnd(n)), Buf("out", empty(cdiv(n, 2048))), n],
                      dict(BLOCK=2048, num_warps=8), simple=True))

    n = 3000017
    specs.append(Spec("histogram_atomic", histogram_atomic_kernel, (cdiv(n, 4096),),
                      [Buf("in", rint(n)), Buf("inout", torch.zeros(256, device=dev, dtype=torch.int32)), n],
                      dict(NBINS=256, BLOCK=4096, num_warps=4), simple=True))

    # Tensor-core GEMMs: 128x128x64 tiles, 8 warps, 3 stages -> wgmma on sm_90.
    M, N, K = 1536, 1280, 512
    for dt, tag in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
        a, b, c = rnd(M, K, dtype=dt), rnd(K, N, dtype=dt), empty(M, N, dtype=dt)
        specs.append(Spec(f"matmul_{tag}", matmul_kernel, (cdiv(M, 128) * cdiv(N, 128),),
                          [Buf("in", a), Buf("in", b), Buf("out", c), M, N, K,
                           a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1)],
                          dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=3),
                          simple=False))

    num_sms = torch.cuda.get_device_properties(dev).multi_processor_count
    M, N, K = 1000, 1200, 520  # ragged: masked tiles at every edge
    a, b, c = rnd(M, K, dtype=torch.float16), rnd(K, N, dtype=torch.float16), empty(M, N, dtype=torch.float16)
    tiles = cdiv(M, 128) * cdiv(N, 128)
    specs.append(Spec("matmul_persistent_f16", matmul_persistent_kernel, (min(num_sms, tiles),),
                      [Buf("in", a), Buf("in", b), Buf("out", c), M, N, K,
                       a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1)],
                      dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, NUM_SMS=num_sms,
                           num_warps=8, num_stages=3), simple=False))

    M, N, K = 1024, 768, 512
    if hasattr(tl, "make_tensor_descriptor"):
        a, b, c = rnd(M, K, dtype=torch.float16), rnd(K, N, dtype=torch.float16), empty(M, N, dtype=torch.float16)
        specs.append(Spec("matmul_tma_device_desc", matmul_tma_device_desc_kernel, (cdiv(M, 128), cdiv(N, 128)),
                          [Buf("in", a), Buf("in", b), Buf("out", c), M, N, K],
                          dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=3), simple=False))
    else:
        print("skip    matmul_tma_device_desc: this Triton has no tl.make_tensor_descriptor")

    try:
        from triton.tools.tensor_descriptor import TensorDescriptor
    except ImportError:
        TensorDescriptor = None
        print("skip    matmul_tma_host_desc: this Triton has no triton.tools.tensor_descriptor")
    if TensorDescriptor is not None:
        a, b, c = rnd(M, K, dtype=torch.float16), rnd(K, N, dtype=torch.float16), empty(M, N, dtype=torch.float16)
        specs.append(Spec("matmul_tma_host_desc", matmul_tma_host_desc_kernel, (cdiv(M, 128), cdiv(N, 128)),
                          [TensorDescriptor.from_tensor(a, [128, 64]), TensorDescriptor.from_tensor(b, [64, 128]),
                           TensorDescriptor.from_tensor(c, [128, 128]), K],
                          dict(BLOCK_K=64, num_warps=8, num_stages=3), simple=False, launchable=False,
                          reason="host TMA descriptors (CUtensorMap by value) cannot be described by the manifest"))

    # Attention: forward (causal and not, ragged and not, pointers and
    # descriptors) and the dK/dV backward.
    for name, head, n_ctx, heads, causal, stages in (("attention_fwd_causal", 64, 1000, 24, True, 3),
                                                    ("attention_fwd_d128", 128, 777, 16, False, 4)):
        q, k, v = (rnd(heads * n_ctx * head, dtype=torch.float16) for _ in range(3))
        specs.append(Spec(name, attention_fwd_kernel, (cdiv(n_ctx, 128), heads),
                          [Buf("in", q), Buf("in", k), Buf("in", v),
                           Buf("out", empty(heads * n_ctx * head, dtype=torch.float16)),
                           Buf("out", empty(heads * n_ctx)), head ** -0.5, n_ctx * head, head, n_ctx],
                          dict(HEAD=head, BLOCK_M=128, BLOCK_N=64, CAUSAL=causal, num_warps=8,
                               num_stages=stages), simple=False))
    head, n_ctx, heads = 64, 1024, 16
    if hasattr(tl, "make_tensor_descriptor"):
        q, k, v = (rnd(heads * n_ctx * head, dtype=torch.float16) for _ in range(3))
        specs.append(Spec("attention_fwd_tma", attention_fwd_tma_kernel, (n_ctx // 128, heads),
                          [Buf("in", q), Buf("in", k), Buf("in", v),
                           Buf("out", empty(heads * n_ctx * head, dtype=torch.float16)),
                           head ** -0.5, n_ctx, heads * n_ctx],
                          dict(HEAD=head, BLOCK_M=128, BLOCK_N=128, num_warps=8), simple=False))
    heads = 12
    q, k, v, do = (rnd(heads * n_ctx * head, dtype=torch.float16) for _ in range(4))
    specs.append(Spec("attention_bwd_dkdv", attention_bwd_dkdv_kernel, (n_ctx // 128, heads),
                      [Buf("in", q), Buf("in", k), Buf("in", v), Buf("in", do),
                       Buf("in", rnd(heads * n_ctx)), Buf("in", rnd(heads * n_ctx)),
                       Buf("out", empty(heads * n_ctx * head, dtype=torch.float16)),
                       Buf("out", empty(heads * n_ctx * head, dtype=torch.float16)),
                       head ** -0.5, n_ctx * head, head, n_ctx],
                      dict(HEAD=head, BLOCK_M=64, BLOCK_N=128, num_warps=8, num_stages=2), simple=False))

    # Persistent TMA matmuls over a flattened tile loop. The 4-warp one asks
    # for warp specialisation, which Triton 3.6 does not apply on sm_90 (the
    # PTX is the same without it); a Triton that does will put such a kernel
    # (setmaxnreg: PTB refused, slices kept) here.
    M, N, K = 2048, 1536, 512
    if hasattr(tl, "make_tensor_descriptor"):
        for name, bn, warps, ws in (("matmul_tma_persistent", 256, 8, False),
                                    ("matmul_tma_persistent_4warps", 128, 4, True)):
            a, b = rnd(M, K, dtype=torch.float16), rnd(N, K, dtype=torch.float16)
            tiles = cdiv(M, 128) * cdiv(N, bn)
            specs.append(Spec(name, matmul_tma_persistent_kernel, (min(num_sms, tiles),),
                              [Buf("in", a), Buf("in", b), Buf("out", empty(M, N, dtype=torch.float16)), M, N, K],
                              dict(BLOCK_M=128, BLOCK_N=bn, BLOCK_K=64, NUM_SMS=num_sms,
                                   WARP_SPECIALIZE=ws, num_warps=warps, num_stages=3), simple=False))

    if hasattr(torch, "float8_e4m3fn"):
        M, N, K = 1000, 1152, 512
        a = rnd(M, K).to(torch.float8_e4m3fn)
        b = rnd(K, N).to(torch.float8_e4m3fn)
        specs.append(Spec("matmul_fp8", matmul_fp8_kernel, (cdiv(M, 128) * cdiv(N, 128),),
                          [Buf("in", a), Buf("in", b), Buf("out", empty(M, N, dtype=torch.float16)),
                           M, N, K, 0.5, 0.25],
                          dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=128, GROUP_M=8, num_warps=8, num_stages=4),
                          simple=False))

    n = 1000003
    specs.append(Spec("dropout_philox", dropout_philox_kernel, (cdiv(n, 1024),),
                      [Buf("in", rnd(n)), Buf("out", empty(n)), n, 0.25, 1234],
                      dict(BLOCK=1024, num_warps=4), simple=True))

    rows, cols, groups = 4099, 1000, 64
    specs.append(Spec("locked_group_sum", locked_group_sum_kernel, (rows,),
                      [Buf("in", rint(rows * cols)), Buf("out", torch.empty(groups * cols, device=dev, dtype=torch.int32)),
                       Buf("zero", torch.zeros(2 * groups, device=dev, dtype=torch.int32)), cols],
                      dict(GROUPS=groups, BLOCK_N=1024, num_warps=4), simple=True))

    n = 300007
    specs.append(Spec("sort_scan_gather", sort_scan_gather_kernel, (cdiv(n, 256),),
                      [Buf("in", rnd(n)), Buf("in", rint(n)), Buf("out", empty(n)),
                       Buf("inout", torch.zeros(256, device=dev, dtype=torch.int32)), n],
                      dict(BLOCK=256, num_warps=4), simple=True))

    grid = (5, 7, 11)
    count = grid[0] * grid[1] * grid[2] * 256
    specs.append(Spec("fp64_libdevice_3d", fp64_libdevice_3d_kernel, grid,
                      [Buf("in", rnd(count, dtype=torch.float64)), Buf("out", empty(count, dtype=torch.float64))],
                      dict(BLOCK=256, num_warps=2), simple=True))

    # Two-CTA clusters (num_ctas=2): the PTX declares .explicitcluster, which
    # baton-ptx must refuse (refuse_* modules are deliberate refusals).
    M, N, K = 1024, 1024, 256
    a, b, c = rnd(M, K, dtype=torch.float16), rnd(K, N, dtype=torch.float16), empty(M, N, dtype=torch.float16)
    specs.append(Spec("refuse_cluster_matmul", matmul_kernel, (cdiv(M, 128) * cdiv(N, 128),),
                      [Buf("in", a), Buf("in", b), Buf("out", c), M, N, K,
                       a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1)],
                      dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=3,
                           num_ctas=2), simple=False))
    return specs


# ---------------------------------------------------------------------------
# PTX / manifest plumbing.

# FP8 buffers are described as bytes: the checkers fill them with random
# bytes, NaN encodings included, which every form computes with alike.
DTYPE_CODE = {"float32": "f32", "float64": "f64", "int32": "i32", "uint32": "u32", "uint8": "u8",
              "int64": "i64", "float16": "f16", "bfloat16": "bf16", "float8_e4m3fn": "u8"}
ENTRY_RE = re.compile(r"\.visible\s+\.entry\s+([\w$]+)\s*\(([^)]*)\)", re.S)
PARAM_RE = re.compile(r"\.param\s+(?:\.align\s+\d+\s+)?\.[a-z]+?(\d+)\b[^,\[]*?([\w$]+)\s*(?:\[(\d+)\])?\s*$")


def ptx_entry(ptx):
    """(kernel name, [(param name, byte size)]) of the single .entry in a Triton PTX module."""
    text = re.sub(r"//[^\n]*", "", ptx)
    entries = ENTRY_RE.findall(text)
    if len(entries) != 1:
        raise RuntimeError(f"expected one .entry, found {len(entries)}")
    name, plist = entries[0]
    params = []
    for p in filter(None, (s.strip() for s in plist.split(","))):
        m = PARAM_RE.search(p)
        if not m:
            raise RuntimeError(f"cannot parse .entry parameter '{p}'")
        params.append((m.group(2), int(m.group(1)) // 8 * (int(m.group(3)) if m.group(3) else 1)))
    return name, params


def ttir_arg_names(kernel):
    """Names of the runtime arguments in the TTIR signature (Triton names block
    arguments after the Python parameters when location info is on)."""
    ttir = kernel.asm.get("ttir") if hasattr(kernel.asm, "get") else None
    if not ttir:
        return None
    m = re.search(r"tt\.func\s+public\s+@[\w$]+\((.*?)\)\s*(?:attributes|\{)", ttir, re.S)
    if not m:
        return None
    names = re.findall(r"%([A-Za-z_]\w*)\s*:", m.group(1))
    return names if names and not all(re.fullmatch(r"arg\d+", n) for n in names) else None


def describe(arg):
    """Manifest PARAM for a runtime argument, or None if Triton specialises it away."""
    if isinstance(arg, Buf):
        code = DTYPE_CODE[str(arg.tensor.dtype).replace("torch.", "")]
        return f"{arg.kind}:{code}:{arg.tensor.numel()}", 8
    if arg is None or isinstance(arg, bool):
        return None  # None -> constexpr; avoid bools (i1) in this corpus
    if isinstance(arg, int):
        if arg == 1:
            return None  # Triton turns integer arguments equal to 1 into constants
        if -(2**31) <= arg < 2**31:
            return f"i32:{arg}", 4
        return f"i64:{arg}", 8
    if isinstance(arg, float):
        return f"f32:{arg!r}", 4
    raise TypeError(f"cannot describe argument of type {type(arg).__name__}")


def meta_get(md, key, default=0):
    if isinstance(md, dict):
        return md.get(key, default)
    return getattr(md, key, default)


def build(spec, torch, outdir, manifest, folder="triton", arch=None):
    """Builds spec (launching it, or for `arch` only compiling it) and writes
    its PTX and metadata to OUTDIR/folder and its line to `manifest`."""
    args = [a.tensor if isinstance(a, Buf) else a for a in spec.args]
    if arch:
        kernel = spec.fn.warmup(*args, grid=spec.grid, **spec.meta)
    else:
        kernel = spec.fn[spec.grid](*args, **spec.meta)
        torch.cuda.synchronize()
    if kernel is None or not hasattr(kernel, "asm"):
        raise RuntimeError("no compiled kernel came back (Triton API changed?)")
    ptx = kernel.asm["ptx"]
    target = re.search(r"^\.target\s+(\w+)", ptx, re.M)
    if arch and (target is None or target.group(1).rstrip("a") != "sm_" + arch[2:]):
        raise RuntimeError(f"compiled for {target.group(1) if target else '?'}, not {arch}")
    md = kernel.metadata
    entry, params = ptx_entry(ptx)
    grid = tuple(spec.grid) + (1,) * (3 - len(spec.grid))
    nprog = grid[0] * grid[1] * grid[2]
    num_warps = meta_get(md, "num_warps")
    num_ctas = meta_get(md, "num_ctas", 1) or 1
    shared = meta_get(md, "shared")
    info = {"kernel": entry, "grid": grid, "num_warps": num_warps, "num_ctas": num_ctas,
            "num_stages": meta_get(md, "num_stages", None), "shared": shared,
            "global_scratch_size": meta_get(md, "global_scratch_size"),
            "global_scratch_align": meta_get(md, "global_scratch_align", None),
            "profile_scratch_size": meta_get(md, "profile_scratch_size"),
            "triton": triton.__version__, "ptx_params": params,
            "wgmma": "wgmma." in ptx, "tma": "cp.async.bulk.tensor" in ptx}

    os.makedirs(os.path.join(outdir, folder), exist_ok=True)
    with open(os.path.join(outdir, folder, spec.name + ".ptx"), "w") as f:
        f.write(ptx)
    with open(os.path.join(outdir, folder, spec.name + ".json"), "w") as f:
        json.dump(info, f, indent=1, default=str)

    def skip(reason):
        manifest.write(f"# not launchable: {folder}/{spec.name}.ptx {entry}: {reason}\n")
        return f"written, not launchable: {reason}"

    if not spec.launchable:
        return skip(spec.reason)
    if num_ctas != 1:
        return skip(f"num_ctas={num_ctas} needs a cluster launch")

    # Runtime arguments that survive specialisation, then hidden trailing pointers.
    described = [describe(a) for a in spec.args]
    kept = [d for d in described if d is not None]
    extra = len(params) - len(kept)
    if extra < 0:
        return skip(f".entry has {len(params)} params, expected at least {len(kept)}")
    for i, ((kind, width), (pname, pwidth)) in enumerate(zip(kept, params)):
        if width != pwidth:
            return skip(f"param {i} ({pname}) is {pwidth} bytes, manifest says {kind}")
    names = ttir_arg_names(kernel)
    if names is not None:
        # TTIR names only the user arguments; they must be ours, in order.
        import inspect
        py = [p for p, a in zip(inspect.signature(spec.fn.fn).parameters, spec.args) if describe(a) is not None]
        if names[:len(py)] != py:
            return skip(f"TTIR arguments {names} do not match expected {py}")
    scratch_sizes = [meta_get(md, "global_scratch_size"), meta_get(md, "profile_scratch_size")]
    hidden = []
    for j in range(extra):
        pname, pwidth = params[len(kept) + j]
        if pwidth != 8:
            return skip(f"hidden param {pname} is {pwidth} bytes, expected a pointer")
        per_prog = scratch_sizes[j] if j < len(scratch_sizes) else 0
        hidden.append(f"in:u8:{max(256, (per_prog or 0) * nprog * num_ctas)}")
    fields = [f"{folder}/{spec.name}.ptx", entry, ",".join(map(str, grid)),
              f"{num_warps * 32},1,1", str(shared)] + [k for k, _ in kept] + hidden
    manifest.write(" ".join(fields) + "\n")
    notes = [target.group(1) if target else "no .target", f"{len(params)} params ({extra} hidden)",
             f"shared={shared}", f"warps={num_warps}"]
    if info["wgmma"]:
        notes.append("wgmma")
    if info["tma"]:
        notes.append("tma")
    if scratch_sizes[0]:
        notes.append(f"global_scratch={scratch_sizes[0]}/program")
    return ", ".join(notes)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?", help="corpus directory (gets triton/ and triton-manifest.txt)")
    ap.add_argument("--check", action="store_true", help="only import triton and print its version")
    ap.add_argument("--only", help="only kernels whose name contains this string")
    ap.add_argument("--arch", help="compile, not run, for this architecture (sm80, sm100, ...)")
    args = ap.parse_args(argv)
    if args.check:
        print(f"triton {triton.__version__}")
        return 0
    if not args.outdir:
        ap.error("OUTDIR is required")

    import torch

    if not torch.cuda.is_available():
        print("gen-triton-corpus: no CUDA device", file=sys.stderr)
        return 1
    dev = torch.device("cuda", 0)
    # Device-side tensor descriptors (and any kernel with global scratch) need
    # an allocator for Triton's global scratch buffer.
    if hasattr(triton, "set_allocator"):
        triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device=dev, dtype=torch.int8))

    os.makedirs(args.outdir, exist_ok=True)
    cap = torch.cuda.get_device_capability(dev)
    specs = make_specs(torch, dev)
    folder, runnable = "triton", True
    if args.arch:
        if not re.fullmatch(r"sm\d+", args.arch):
            ap.error("--arch takes the form smNN (sm80, sm100)")
        folder = "triton-" + args.arch
        # PTX of an older architecture runs here (the driver compiles it for
        # this GPU); a newer one's gets no manifest.
        runnable = int(args.arch[2:]) <= cap[0] * 10 + cap[1]
        # Triton builds its target from the capability the driver reports,
        # which it reads through torch; TRITON_OVERRIDE_ARCH alone changes
        # the TTGIR passes but not the LLVM target (Triton 3.6).
        capability = divmod(int(args.arch[2:]), 10)
        torch.cuda.get_device_capability = lambda *_, **__: capability
        active = triton.runtime.driver.active
        active.get_device_capability = torch.cuda.get_device_capability
    path = os.path.join(args.outdir, folder + "-manifest.txt")
    ok_simple = fail_simple = 0
    with (open(path, "w") if runnable else io.StringIO()) as manifest:
        manifest.write("# Baton corpus: Triton kernels. GENERATED by scripts/gen-triton-corpus.py\n")
        manifest.write(f"# triton {triton.__version__}, torch {torch.__version__}, "
                       f"{torch.cuda.get_device_name(dev)} (sm_{cap[0]}{cap[1]})"
                       + (f", compiled for {args.arch}\n" if args.arch else "\n"))
        manifest.write("# Format: MODULE KERNEL GX,GY,GZ BX,BY,BZ DYN_SMEM_BYTES PARAM... "
                       "(see test/corpus/README.md)\n")
        for spec in specs:
            if args.only and args.only not in spec.name:
                continue
            try:
                status = build(spec, torch, args.outdir, manifest, folder, args.arch)
                manifest.flush()
                print(f"ok      {spec.name}: {status}", flush=True)
                ok_simple += spec.simple
            except Exception as e:  # one broken kernel must not stop the rest
                msg = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
                print(f"failed  {spec.name}: {type(e).__name__}: {msg[:300]}", flush=True)
                if os.environ.get("GEN_TRITON_VERBOSE"):
                    traceback.print_exc()
                manifest.write(f"# failed: {spec.name}: {type(e).__name__}\n")
                fail_simple += spec.simple
    if runnable:
        print(f"gen-triton-corpus: wrote {path}")
    return 0 if fail_simple == 0 and (ok_simple > 0 or args.only) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
