#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Softplus with beta/threshold (torch.nn.Softplus). Each thread stages its input in its
// own shared-memory slot and only ever reads that slot back, so no barrier is needed.
__global__ void softplus_kernel(const float* __restrict__ x, float* __restrict__ y,
                                float beta, float threshold, int n) {
    __shared__ float s_x[BLOCK_SIZE];

    const int tid = threadIdx.x;
    const int i = blockIdx.x * BLOCK_SIZE + tid;
    if (i < n) {
        s_x[tid] = x[i] * beta;
        const float bx = s_x[tid];
        y[i] = (bx > threshold) ? x[i] : log1pf(__expf(bx)) / beta;
    }
}

void launch_softplus(const float* x, float* y, float beta, float threshold, int n) {
    const int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    softplus_kernel<<<blocks, BLOCK_SIZE>>>(x, y, beta, threshold, n);
}
