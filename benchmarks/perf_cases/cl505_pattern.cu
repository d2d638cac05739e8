// CL505 pattern: a naive matrix product, both operands read from global memory in the k loop.
#include <cuda_runtime.h>

__global__ void case_matmul(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float acc = 0.0f;
        for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
        C[row * n + col] = acc;
    }
}

void launch_case(void* a, void* b, void* c, long long n) {
    int size = (int)n;
    dim3 block(16, 16), grid((size + 15) / 16, (size + 15) / 16);
    case_matmul<<<grid, block>>>((const float*)a, (const float*)b, (float*)c, size);
}
