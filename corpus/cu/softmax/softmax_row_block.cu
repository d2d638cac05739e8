#include <cuda_runtime.h>
#include <math.h>

#define BLOCK_SIZE 256

// Row-wise softmax over a (rows x cols) matrix, one thread block per row.
__global__ void softmax_kernel(const float* __restrict__ input,
                               float* __restrict__ output,
                               int rows, int cols) {
    __shared__ float sdata[BLOCK_SIZE];

    const int row = blockIdx.x;
    const int tid = threadIdx.x;
    const float* row_in = input + (size_t)row * cols;
    float* row_out = output + (size_t)row * cols;

    // 1) row maximum
    float local_max = -INFINITY;
    for (int j = tid; j < cols; j += blockDim.x) {
        local_max = fmaxf(local_max, row_in[j]);
    }
    sdata[tid] = local_max;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] = fmaxf(sdata[tid], sdata[tid + s]);
        }
        __syncthreads();
    }
    const float row_max = sdata[0];
    __syncthreads();

    // 2) sum of exponentials
    float local_sum = 0.0f;
    for (int j = tid; j < cols; j += blockDim.x) {
        local_sum += __expf(row_in[j] - row_max);
    }
    sdata[tid] = local_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    const float inv_sum = 1.0f / sdata[0];

    // 3) normalize
    for (int j = tid; j < cols; j += blockDim.x) {
        row_out[j] = __expf(row_in[j] - row_max) * inv_sum;
    }
}

void launch_softmax(const float* input, float* output, int rows, int cols) {
    softmax_kernel<<<rows, BLOCK_SIZE>>>(input, output, rows, cols);
}
