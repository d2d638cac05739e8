#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Row-wise cumsum for a (rows x cols) matrix with cols <= BLOCK_SIZE, one block per row.
// Also accumulates the sum of all elements into *grand_total.
__global__ void row_cumsum_kernel(const float* __restrict__ x, float* __restrict__ y,
                                  float* grand_total, int cols) {
    __shared__ float buf[BLOCK_SIZE];
    const int tid = threadIdx.x;
    const int row = blockIdx.x;
    const int idx = row * cols + tid;

    buf[tid] = (tid < cols) ? x[idx] : 0.0f;
    __syncthreads();
    for (int off = 1; off < BLOCK_SIZE; off <<= 1) {
        float v = (tid >= off) ? buf[tid - off] : 0.0f;
        __syncthreads();
        buf[tid] += v;
        __syncthreads();
    }
    if (tid < cols) y[idx] = buf[tid];

    // last thread holds the row total (padding is zero)
    if (tid == BLOCK_SIZE - 1) {
        // expect: CL106
        *grand_total += buf[tid];
    }
}

void launch_row_cumsum(const float* x, float* y, float* grand_total, int rows, int cols) {
    cudaMemset(grand_total, 0, sizeof(float));
    row_cumsum_kernel<<<rows, BLOCK_SIZE>>>(x, y, grand_total, cols);
}
