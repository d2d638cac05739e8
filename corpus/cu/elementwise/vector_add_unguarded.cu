#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// c = alpha * a + b
__global__ void axpy_kernel(const float* a, const float* b, float* c, float alpha, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    // expect: CL201
    c[i] = alpha * a[i] + b[i];
}

void launch_axpy(const float* a, const float* b, float* c, float alpha, int n) {
    int threads = BLOCK_SIZE;
    int blocks = (n + threads - 1) / threads;
    axpy_kernel<<<blocks, threads>>>(a, b, c, alpha, n);
}
