#include <cuda_runtime.h>
#include <math.h>

#define BLOCK_SIZE 256

// Softmax that processes the row in chunks of blockDim.x elements
__global__ void softmax_chunked_kernel(const float* __restrict__ input,
                                       float* __restrict__ output,
                                       int cols) {
    __shared__ float sdata[BLOCK_SIZE];
    const int tid = threadIdx.x;
    const int row = blockIdx.x;

    // running max over chunks
    float row_max = -INFINITY;
    for (int j = tid; j < cols; j += blockDim.x) {
        sdata[tid] = input[row * cols + j];
        // expect: CL102
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (tid < s) sdata[tid] = fmaxf(sdata[tid], sdata[tid + s]);
            // expect: CL102
            __syncthreads();
        }
        row_max = fmaxf(row_max, sdata[0]);
        // expect: CL102
        __syncthreads();
    }

    float thread_sum = 0.0f;
    for (int j = tid; j < cols; j += blockDim.x) {
        thread_sum += expf(input[row * cols + j] - row_max);
    }
    sdata[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    const float total = sdata[0];

    for (int j = tid; j < cols; j += blockDim.x) {
        output[row * cols + j] = expf(input[row * cols + j] - row_max) / total;
    }
}

void launch_softmax_chunked(const float* input, float* output, int rows, int cols) {
    softmax_chunked_kernel<<<rows, BLOCK_SIZE>>>(input, output, cols);
}
