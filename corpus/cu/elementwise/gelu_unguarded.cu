#include <cuda_runtime.h>
#include <math.h>

#define BLOCK_SIZE 256

// Exact GELU: 0.5 * x * (1 + erf(x / sqrt(2)))
__global__ void gelu_kernel(const float* __restrict__ x, float* __restrict__ y, int size) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    // expect: CL201
    const float v = x[idx];
    const float cdf = 0.5f * (1.0f + erff(v * 0.70710678118654752f));
    // expect: CL201
    y[idx] = v * cdf;
}

void launch_gelu(const float* x, float* y, int size) {
    const int threads = BLOCK_SIZE;
    const int blocks = (size + threads - 1) / threads;
    gelu_kernel<<<blocks, threads>>>(x, y, size);
}
