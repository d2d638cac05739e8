import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Fused scaled dot-product attention: scores, softmax and PV product in one kernel.
# expect: CL400
fused_attention_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cfloat>

#define BLOCK_Q 16
#define HEAD_DIM 64

__global__ void fused_attention_kernel(const float* __restrict__ Q, const float* __restrict__ K,
                                       const float* __restrict__ V, float* __restrict__ O,
                                       int S, float scale) {
    __shared__ float q_tile[BLOCK_Q][HEAD_DIM];
    __shared__ float k_tile[BLOCK_Q][HEAD_DIM];
    const int bh = blockIdx.y;
    const int q0 = blockIdx.x * BLOCK_Q;
    const int tx = threadIdx.x;   // 0..63, head dim
    const int ty = threadIdx.y;   // 0..15, query within tile

    if (q0 + ty < S) {
        q_tile[ty][tx] = Q[((size_t)bh * S + q0 + ty) * HEAD_DIM + tx];
    }
    __syncthreads();

    float m = -FLT_MAX;
    float l = 0.0f;
    float acc = 0.0f;
    for (int k0 = 0; k0 < S; k0 += BLOCK_Q) {
        if (k0 + ty < S) {
            k_tile[ty][tx] = K[((size_t)bh * S + k0 + ty) * HEAD_DIM + tx];
        }
        __syncthreads();
        for (int kk = 0; kk < BLOCK_Q && k0 + kk < S; ++kk) {
            float s = 0.0f;
            for (int d = 0; d < HEAD_DIM; ++d) {
                s += q_tile[ty][d] * k_tile[kk][d];
            }
            s *= scale;
            const float m_new = fmaxf(m, s);
