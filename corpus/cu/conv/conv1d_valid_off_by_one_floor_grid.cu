#include <cuda_runtime.h>

// Valid 1D convolution: y[i] = sum_{k=0}^{K-1} x[i + k] * w[k], output length n - K + 1
__global__ void conv1d_valid_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                    float* __restrict__ y, int n, int K) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int out_len = n - K + 1;
    if (i < out_len) {
        float acc = 0.0f;
        // expect: CL202
        for (int k = 0; k <= K; ++k) {
            acc += x[i + k] * w[k];
        }
        y[i] = acc;
    }
}

void launch_conv1d_valid(const float* x, const float* w, float* y, int n, int K) {
    const int out_len = n - K + 1;
    const int threads = 256;
    const int blocks = out_len / threads;
    // expect: CL204
    conv1d_valid_kernel<<<blocks, threads>>>(x, w, y, n, K);
}
