#include <cuda_runtime.h>
#include <math.h>

#define SEQ_LEN 256
#define HEAD_DIM 64

// Fused attention for short sequences: one block per (query, head), one thread per key.
// Q, K, V, O: [BH, SEQ_LEN, HEAD_DIM]
__global__ void fused_attention_kernel(const float* __restrict__ Q, const float* __restrict__ K,
                                       const float* __restrict__ V, float* __restrict__ O,
                                       float scale) {
    __shared__ float s_scores[SEQ_LEN];
    __shared__ float s_max;
    __shared__ float s_sum;

    const int qi = blockIdx.x;
    const int bh = blockIdx.y;
    const int j = threadIdx.x;   // key index
    const size_t head = (size_t)bh * SEQ_LEN * HEAD_DIM;

    // score for key j
    float dot = 0.0f;
    for (int d = 0; d < HEAD_DIM; ++d) {
        dot += Q[head + qi * HEAD_DIM + d] * K[head + j * HEAD_DIM + d];
    }
    s_scores[j] = dot * scale;

    // row max (serial, SEQ_LEN is small)
    if (j == 0) {
        float m = -INFINITY;
        for (int t = 0; t < SEQ_LEN; ++t) {
            // expect: CL101
            m = fmaxf(m, s_scores[t]);
        }
        s_max = m;
    }
    __syncthreads();

    const float p = __expf(s_scores[j] - s_max);
    s_scores[j] = p;
    __syncthreads();

    if (j == 0) {
        float s = 0.0f;
        for (int t = 0; t < SEQ_LEN; ++t) s += s_scores[t];
        s_sum = s;
    }
    __syncthreads();

    // output: thread d < HEAD_DIM computes O[qi, d]
    if (j < HEAD_DIM) {
        float acc = 0.0f;
        for (int t = 0; t < SEQ_LEN; ++t) acc += s_scores[t] * V[head + t * HEAD_DIM + j];
        O[head + qi * HEAD_DIM + j] = acc / s_sum;
    }
}

void launch_fused_attention(const float* Q, const float* K, const float* V, float* O, int BH) {
    dim3 grid(SEQ_LEN, BH);
    fused_attention_kernel<<<grid, SEQ_LEN>>>(Q, K, V, O, 1.0f / sqrtf((float)HEAD_DIM));
}
