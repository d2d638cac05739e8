#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Absolute maximum of a tensor (used for per-tensor int8 quantization scale)
__global__ void absmax_kernel(const float* __restrict__ x, float* max_out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = fabsf(x[i]);
        // expect: CL106
        *max_out = fmaxf(*max_out, v);
    }
}

void launch_absmax(const float* x, float* max_out, int n) {
    cudaMemset(max_out, 0, sizeof(float));
    const int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    absmax_kernel<<<blocks, BLOCK_SIZE>>>(x, max_out, n);
}
