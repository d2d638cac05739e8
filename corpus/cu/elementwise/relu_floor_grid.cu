#include <cuda_runtime.h>

// ReLU, one element per thread
__global__ void relu_kernel(const float* __restrict__ input, float* __restrict__ output, int n) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        output[idx] = fmaxf(input[idx], 0.0f);
    }
}

void launch_relu(const float* input, float* output, int n) {
    const int threads = 256;
    const int blocks = n / threads;
    // expect: CL204
    relu_kernel<<<blocks, threads>>>(input, output, n);
}
