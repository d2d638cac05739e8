#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Row-sum of a (rows x cols) matrix, one block per row
__global__ void row_sum_kernel(const float* __restrict__ mat, float* __restrict__ row_sums, int cols) {
    __shared__ float sdata[BLOCK_SIZE];

    const int row = blockIdx.x;
    const int tid = threadIdx.x;

    float acc = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) {
        acc += mat[row * cols + c];
    }
    sdata[tid] = acc;
    __syncthreads();

    for (int stride = blockDim.x; stride > 0; stride >>= 1) {
        if (tid < stride) {
            // expect: CL203
            sdata[tid] += sdata[tid + stride];
        }
        __syncthreads();
    }

    if (tid == 0) row_sums[row] = sdata[0];
}

void launch_row_sum(const float* mat, float* row_sums, int rows, int cols) {
    row_sum_kernel<<<rows, BLOCK_SIZE>>>(mat, row_sums, cols);
}
