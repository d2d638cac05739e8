#include <cuda_runtime.h>
#include <math.h>

#define BLOCK_SIZE 128

// Softmax with one thread per row (rows are short, e.g. attention heads of 64)
__global__ void softmax_row_per_thread_kernel(const float* __restrict__ in,
                                              float* __restrict__ out,
                                              int num_rows, int row_len) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int base = row * row_len;

    float max_val = -INFINITY;
    for (int j = 0; j < row_len; ++j) {
        // expect: CL201
        max_val = fmaxf(max_val, in[base + j]);
    }

    float sum = 0.0f;
    for (int j = 0; j < row_len; ++j) {
        // expect: CL201
        float e = expf(in[base + j] - max_val);
        // expect: CL201
        out[base + j] = e;
        sum += e;
    }

    const float inv_sum = 1.0f / sum;
    for (int j = 0; j < row_len; ++j) {
        // expect: CL201
        out[base + j] *= inv_sum;
    }
}

void launch_softmax_rows(const float* in, float* out, int num_rows, int row_len) {
    int threads = BLOCK_SIZE;
    int blocks = (num_rows + threads - 1) / threads;
    softmax_row_per_thread_kernel<<<blocks, threads>>>(in, out, num_rows, row_len);
}
