#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// LeakyReLU with an early-exit bounds check. No block-level synchronization
// follows the return, so exiting early is safe.
__global__ void leaky_relu_kernel(const float* __restrict__ input,
                                  float* __restrict__ output,
                                  float negative_slope,
                                  int n) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;

    const float x = input[idx];
    output[idx] = x >= 0.0f ? x : x * negative_slope;
}

void launch_leaky_relu(const float* input, float* output, float negative_slope, int n) {
    const int threads = BLOCK_SIZE;
    const int blocks = (n + threads - 1) / threads;
    leaky_relu_kernel<<<blocks, threads>>>(input, output, negative_slope, n);
}
