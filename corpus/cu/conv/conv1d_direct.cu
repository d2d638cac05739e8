#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// 1-D convolution (cross-correlation, 'valid' padding, stride 1) over a batch of
// multi-channel signals. in: [N, C_in, L], weight: [C_out, C_in, K], out: [N, C_out, L - K + 1]
__global__ void conv1d_kernel(const float* __restrict__ in,
                              const float* __restrict__ weight,
                              const float* __restrict__ bias,
                              float* __restrict__ out,
                              int N, int C_in, int C_out, int L, int K) {
    const int L_out = L - K + 1;
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    const int total = N * C_out * L_out;
    if (idx >= total) return;

    const int t = idx % L_out;
    const int co = (idx / L_out) % C_out;
    const int n = idx / (L_out * C_out);

    float acc = bias[co];
    for (int ci = 0; ci < C_in; ++ci) {
        const float* x = in + ((size_t)n * C_in + ci) * L + t;
        const float* w = weight + ((size_t)co * C_in + ci) * K;
        for (int k = 0; k < K; ++k) {
            acc += x[k] * w[k];
        }
    }
    out[idx] = acc;
}

void launch_conv1d(const float* in, const float* weight, const float* bias, float* out,
                   int N, int C_in, int C_out, int L, int K) {
    const int total = N * C_out * (L - K + 1);
    const int blocks = (total + BLOCK_SIZE - 1) / BLOCK_SIZE;
    conv1d_kernel<<<blocks, BLOCK_SIZE>>>(in, weight, bias, out, N, C_in, C_out, L, K);
}
