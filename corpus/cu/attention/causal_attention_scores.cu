#include <cuda_runtime.h>
#include <math.h>

#define TILE 16
#define WARP 32

// Step 1: causal scores S[bh, i, j] = (q_i . k_j) * scale for j <= i, -inf otherwise.
__global__ void causal_scores_kernel(const float* __restrict__ Q, const float* __restrict__ K,
                                     float* __restrict__ S, int seq, int dim, float scale) {
    const int j = blockIdx.x * TILE + threadIdx.x;
    const int i = blockIdx.y * TILE + threadIdx.y;
    const size_t bh = blockIdx.z;
    if (i < seq && j < seq) {
        float acc = -INFINITY;
        if (j <= i) {
            acc = 0.0f;
            for (int d = 0; d < dim; ++d) {
                acc += Q[(bh * seq + i) * dim + d] * K[(bh * seq + j) * dim + d];
            }
            acc *= scale;
        }
        S[(bh * seq + i) * seq + j] = acc;
    }
}

// Step 2: in-place row softmax over the masked scores, one warp per row.
__global__ void masked_softmax_kernel(float* __restrict__ S, int total_rows, int seq) {
    const int row = blockIdx.x * (blockDim.x / WARP) + threadIdx.x / WARP;
    const int lane = threadIdx.x % WARP;
    if (row >= total_rows) return;

    float* r = S + (size_t)row * seq;
    float m = -INFINITY;
    for (int j = lane; j < seq; j += WARP) m = fmaxf(m, r[j]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));

    float sum = 0.0f;
    for (int j = lane; j < seq; j += WARP) sum += __expf(r[j] - m);
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, o);

    const float inv = 1.0f / sum;
    for (int j = lane; j < seq; j += WARP) r[j] = __expf(r[j] - m) * inv;
}

void launch_causal_attention_probs(const float* Q, const float* K, float* S, int BH, int seq, int dim) {
    dim3 block(TILE, TILE);
    dim3 grid((seq + TILE - 1) / TILE, (seq + TILE - 1) / TILE, BH);
    causal_scores_kernel<<<grid, block>>>(Q, K, S, seq, dim, 1.0f / sqrtf((float)dim));

    const int rows = BH * seq;
    const int threads = 256;
    const int rows_per_block = threads / WARP;
    masked_softmax_kernel<<<(rows + rows_per_block - 1) / rows_per_block, threads>>>(S, rows, seq);
}
