#include <cuda_runtime.h>
#include <math.h>

#define BLOCK_Q 64
#define BLOCK_KV 64
#define HEAD_DIM 64

// Causal flash-attention forward: each thread owns one query row; K/V tiles are staged
// in shared memory. Causality lets a query stop after the tile containing its own position.
__global__ void causal_flash_attn_kernel(const float* __restrict__ Q, const float* __restrict__ K,
                                         const float* __restrict__ V, float* __restrict__ O,
                                         int seq_len, float scale) {
    __shared__ float Ks[BLOCK_KV][HEAD_DIM];
    __shared__ float Vs[BLOCK_KV][HEAD_DIM];

    const int tid = threadIdx.x;
    const int q_idx = blockIdx.x * BLOCK_Q + tid;
    const size_t off = (size_t)blockIdx.y * seq_len * HEAD_DIM;
    if (q_idx >= seq_len) return;

    float q[HEAD_DIM], acc[HEAD_DIM];
    for (int d = 0; d < HEAD_DIM; ++d) {
        q[d] = Q[off + (size_t)q_idx * HEAD_DIM + d] * scale;
        acc[d] = 0.0f;
    }
    float row_max = -INFINITY, row_sum = 0.0f;

    for (int kv_start = 0; kv_start <= q_idx; kv_start += BLOCK_KV) {
        for (int e = tid; e < BLOCK_KV * HEAD_DIM; e += BLOCK_Q) {
            int r = e / HEAD_DIM, c = e % HEAD_DIM;
            int kr = kv_start + r;
            Ks[r][c] = (kr < seq_len) ? K[off + (size_t)kr * HEAD_DIM + c] : 0.0f;
            Vs[r][c] = (kr < seq_len) ? V[off + (size_t)kr * HEAD_DIM + c] : 0.0f;
        }
        // expect: CL102
        __syncthreads();

        for (int j = 0; j < BLOCK_KV; ++j) {
            const int k_idx = kv_start + j;
            if (k_idx > q_idx || k_idx >= seq_len) break;
            float s = 0.0f;
            for (int d = 0; d < HEAD_DIM; ++d) s += q[d] * Ks[j][d];
            const float new_max = fmaxf(row_max, s);
            const float alpha = __expf(row_max - new_max);
            const float p = __expf(s - new_max);
            row_sum = row_sum * alpha + p;
            for (int d = 0; d < HEAD_DIM; ++d) acc[d] = acc[d] * alpha + p * Vs[j][d];
            row_max = new_max;
        }
        // expect: CL102
        __syncthreads();
    }

    for (int d = 0; d < HEAD_DIM; ++d) O[off + (size_t)q_idx * HEAD_DIM + d] = acc[d] / row_sum;
}

void launch_causal_flash_attn(const float* Q, const float* K, const float* V, float* O,
                              int batch_heads, int seq_len) {
    dim3 grid((seq_len + BLOCK_Q - 1) / BLOCK_Q, batch_heads);
    causal_flash_attn_kernel<<<grid, BLOCK_Q>>>(Q, K, V, O, seq_len, 1.0f / sqrtf((float)HEAD_DIM));
}
