// The custom op's host interface (see custom_op.cu).
#pragma once
#include <cuda_runtime_api.h>

struct CustomOpBuffers {
  const float *A, *W, *Bias, *Gamma, *Beta; // M x K, K x N, N, N, N
  float *Hidden, *Out;                      // M x N each
};

/// Out = layernorm_rows(gelu(A W + bias)) on \p Stream.
void customLinearGeluNorm(const CustomOpBuffers &B, int M, int N, int K,
                          cudaStream_t Stream);
