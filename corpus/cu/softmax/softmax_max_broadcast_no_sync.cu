#include <cuda_runtime.h>
#include <math.h>

#define BLOCK_SIZE 256

// Numerically stable softmax, one block per row
__global__ void softmax_kernel(const float* __restrict__ input, float* __restrict__ output, int cols) {
    __shared__ float sdata[BLOCK_SIZE];
    __shared__ float s_max;
    __shared__ float s_sum;

    const int tid = threadIdx.x;
    const float* x = input + (size_t)blockIdx.x * cols;
    float* y = output + (size_t)blockIdx.x * cols;

    // find max
    float local_max = -INFINITY;
    for (int i = tid; i < cols; i += blockDim.x) {
        local_max = fmaxf(local_max, x[i]);
    }
    sdata[tid] = local_max;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = fmaxf(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
    if (tid == 0) s_max = sdata[0];
    // expect: CL101
    const float row_max = s_max;

    // sum of exp
    float local_sum = 0.0f;
    for (int i = tid; i < cols; i += blockDim.x) {
        local_sum += expf(x[i] - row_max);
    }
    sdata[tid] = local_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) s_sum = sdata[0];
    __syncthreads();

    const float inv = 1.0f / s_sum;
    for (int i = tid; i < cols; i += blockDim.x) {
        y[i] = expf(x[i] - row_max) * inv;
    }
}

void launch_softmax(const float* input, float* output, int rows, int cols) {
    softmax_kernel<<<rows, BLOCK_SIZE>>>(input, output, cols);
}
