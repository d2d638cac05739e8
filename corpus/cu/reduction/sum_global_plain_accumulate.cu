#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Dot product: result = sum(a[i] * b[i])
__global__ void dot_product_kernel(const float* __restrict__ a,
                                   const float* __restrict__ b,
                                   float* result, int n) {
    float partial = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        partial += a[i] * b[i];
    }
    // accumulate into the output scalar
    // expect: CL106
    *result += partial;
}

void launch_dot(const float* a, const float* b, float* result, int n) {
    int threads = BLOCK_SIZE;
    int blocks = (n + threads - 1) / threads;
    if (blocks > 512) blocks = 512;
    cudaMemset(result, 0, sizeof(float));
    dot_product_kernel<<<blocks, threads>>>(a, b, result, n);
}
