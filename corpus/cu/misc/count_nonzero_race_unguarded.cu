#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// torch.count_nonzero
__global__ void count_nonzero_kernel(const float* x, int* count, int n) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    // expect: CL106, CL201
    count[0] += (x[idx] != 0.0f) ? 1 : 0;
}

void launch_count_nonzero(const float* x, int* count, int n) {
    cudaMemset(count, 0, sizeof(int));
    int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    count_nonzero_kernel<<<blocks, BLOCK_SIZE>>>(x, count, n);
}
