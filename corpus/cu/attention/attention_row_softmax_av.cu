#include <cuda_runtime.h>
#include <math.h>

#define SEQ_LEN 512
#define HEAD_DIM 64
#define THREADS 256

// Scaled dot-product attention for one query row per block:
// scores = q . K^T * scale -> softmax -> weighted sum of V.
// Q, K, V, O: [BH, SEQ_LEN, HEAD_DIM]; grid = (SEQ_LEN, BH).
__global__ void attention_row_kernel(const float* __restrict__ Q,
                                     const float* __restrict__ K,
                                     const float* __restrict__ V,
                                     float* __restrict__ O,
                                     float scale) {
    __shared__ float s_q[HEAD_DIM];
    __shared__ float s_p[SEQ_LEN];
    __shared__ float s_red[THREADS];

    const int bh = blockIdx.y;
    const int i = blockIdx.x;
    const int tid = threadIdx.x;
    const size_t head = (size_t)bh * SEQ_LEN * HEAD_DIM;

    for (int d = tid; d < HEAD_DIM; d += THREADS) s_q[d] = Q[head + (size_t)i * HEAD_DIM + d];
    __syncthreads();

    // scores and running max
    float m = -INFINITY;
    for (int j = tid; j < SEQ_LEN; j += THREADS) {
        float dot = 0.0f;
        for (int d = 0; d < HEAD_DIM; ++d) dot += s_q[d] * K[head + (size_t)j * HEAD_DIM + d];
        dot *= scale;
        s_p[j] = dot;
        m = fmaxf(m, dot);
    }
    s_red[tid] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) s_red[tid] = fmaxf(s_red[tid], s_red[tid + s]);
        __syncthreads();
    }
    m = s_red[0];
    __syncthreads();

    // exponentiate own entries and sum
    float sum = 0.0f;
    for (int j = tid; j < SEQ_LEN; j += THREADS) {
        const float e = __expf(s_p[j] - m);
        s_p[j] = e;
        sum += e;
    }
    s_red[tid] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) s_red[tid] += s_red[tid + s];
        __syncthreads();
    }
    const float inv = 1.0f / s_red[0];

    // O[i, d] = sum_j p_j * V[j, d]
    for (int d = tid; d < HEAD_DIM; d += THREADS) {
        float acc = 0.0f;
        for (int j = 0; j < SEQ_LEN; ++j) acc += s_p[j] * V[head + (size_t)j * HEAD_DIM + d];
        O[head + (size_t)i * HEAD_DIM + d] = acc * inv;
    }
}

void launch_attention_row(const float* Q, const float* K, const float* V, float* O, int BH) {
    dim3 grid(SEQ_LEN, BH);
    const float scale = 1.0f / sqrtf((float)HEAD_DIM);
    attention_row_kernel<<<grid, THREADS>>>(Q, K, V, O, scale);
}
