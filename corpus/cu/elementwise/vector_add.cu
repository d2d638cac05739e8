#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Element-wise vector addition: c = a + b
__global__ void vector_add_kernel(const float* __restrict__ a,
                                  const float* __restrict__ b,
                                  float* __restrict__ c,
                                  int n) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        c[idx] = a[idx] + b[idx];
    }
}

void launch_vector_add(const float* a, const float* b, float* c, int n) {
    int threads = BLOCK_SIZE;
    int blocks = (n + threads - 1) / threads;
    vector_add_kernel<<<blocks, threads>>>(a, b, c, n);
}
