#include <cuda_runtime.h>
#include <math.h>

#define SEQ_LEN 2048
#define HEAD_DIM 64

// Attention probabilities for one query row per block, one thread per key position.
// P: [BH, SEQ_LEN, SEQ_LEN]
__global__ void attn_probs_kernel(const float* __restrict__ Q, const float* __restrict__ K,
                                  float* __restrict__ P, float scale) {
    __shared__ float s_red[SEQ_LEN];
    const int i = blockIdx.x;
    const int bh = blockIdx.y;
    const int j = threadIdx.x;
    const size_t head = (size_t)bh * SEQ_LEN * HEAD_DIM;

    float s = 0.0f;
    for (int d = 0; d < HEAD_DIM; ++d) s += Q[head + i * HEAD_DIM + d] * K[head + j * HEAD_DIM + d];
    s *= scale;

    s_red[j] = s;
    __syncthreads();
    for (int stride = SEQ_LEN / 2; stride > 0; stride >>= 1) {
        if (j < stride) s_red[j] = fmaxf(s_red[j], s_red[j + stride]);
        __syncthreads();
    }
    const float m = s_red[0];
    __syncthreads();

    const float e = __expf(s - m);
    s_red[j] = e;
    __syncthreads();
    for (int stride = SEQ_LEN / 2; stride > 0; stride >>= 1) {
        if (j < stride) s_red[j] += s_red[j + stride];
        __syncthreads();
    }

    P[((size_t)bh * SEQ_LEN + i) * SEQ_LEN + j] = e / s_red[0];
}

void launch_attn_probs(const float* Q, const float* K, float* P, int BH) {
    dim3 grid(SEQ_LEN, BH);
    // expect: CL302
    attn_probs_kernel<<<grid, SEQ_LEN>>>(Q, K, P, 1.0f / sqrtf((float)HEAD_DIM));
}
