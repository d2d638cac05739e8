#include <cuda_runtime.h>

// Row sums, one block per row. Each thread accumulates a strided partial of the row, then writes it
// straight to the row's output slot: the block-level reduction was forgotten, so the last thread wins.
__global__ void row_sum_kernel(const float* __restrict__ input, float* __restrict__ output, int cols) {
    const float* row = input + (size_t)blockIdx.x * cols;
    float partial = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        partial += row[c];
    }
    // expect: CL105
    output[blockIdx.x] = partial;
}

void row_sum(const float* input, float* output, int rows, int cols) {
    row_sum_kernel<<<rows, 256>>>(input, output, cols);
}
