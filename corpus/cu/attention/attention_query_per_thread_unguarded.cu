#include <cuda_runtime.h>
#include <math.h>

#define HEAD_DIM 32
#define THREADS 128

// Simple attention, one thread per query (no shared memory), two passes over the keys.
// Q, K, V, O: [BH, S, HEAD_DIM]
__global__ void attention_naive_kernel(const float* Q, const float* K, const float* V, float* O,
                                       int S, float scale) {
    const int q_idx = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t base = (size_t)blockIdx.y * S * HEAD_DIM;

    float q[HEAD_DIM];
    for (int d = 0; d < HEAD_DIM; ++d) {
        // expect: CL201
        q[d] = Q[base + q_idx * HEAD_DIM + d];
    }

    // pass 1: max score
    float m = -INFINITY;
    for (int j = 0; j < S; ++j) {
        float s = 0.0f;
        for (int d = 0; d < HEAD_DIM; ++d) s += q[d] * K[base + j * HEAD_DIM + d];
        m = fmaxf(m, s * scale);
    }

    // pass 2: softmax-weighted sum of V
    float out[HEAD_DIM];
    for (int d = 0; d < HEAD_DIM; ++d) out[d] = 0.0f;
    float denom = 0.0f;
    for (int j = 0; j < S; ++j) {
        float s = 0.0f;
        for (int d = 0; d < HEAD_DIM; ++d) s += q[d] * K[base + j * HEAD_DIM + d];
        const float p = __expf(s * scale - m);
        denom += p;
        for (int d = 0; d < HEAD_DIM; ++d) out[d] += p * V[base + j * HEAD_DIM + d];
    }

    for (int d = 0; d < HEAD_DIM; ++d) {
        // expect: CL201
        O[base + q_idx * HEAD_DIM + d] = out[d] / denom;
    }
}

void launch_attention_naive(const float* Q, const float* K, const float* V, float* O, int BH, int S) {
    dim3 grid((S + THREADS - 1) / THREADS, BH);
    attention_naive_kernel<<<grid, THREADS>>>(Q, K, V, O, S, 1.0f / sqrtf((float)HEAD_DIM));
}
