#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Fused LayerNorm kernel, one block per token
__global__ void layer_norm_kernel(const float* __restrict__ input,
                                  const float* __restrict__ gamma,
                                  const float* __restrict__ beta,
                                  float* __restrict__ output,
                                  int normalized_size, float eps) {
    __shared__ float s_sum[BLOCK_SIZE];
    __shared__ float s_mean;
    __shared__ float s_rstd;

    const int tid = threadIdx.x;
    const int offset = blockIdx.x * normalized_size;

    // mean
    float thread_sum = 0.0f;
    for (int i = tid; i < normalized_size; i += blockDim.x) {
        thread_sum += input[offset + i];
    }
    s_sum[tid] = thread_sum;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s_sum[tid] += s_sum[tid + stride];
        __syncthreads();
    }
    if (tid == 0) s_mean = s_sum[0] / normalized_size;
    __syncthreads();
    const float mean = s_mean;

    // variance
    float thread_var = 0.0f;
    for (int i = tid; i < normalized_size; i += blockDim.x) {
        float diff = input[offset + i] - mean;
        thread_var += diff * diff;
    }
    s_sum[tid] = thread_var;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s_sum[tid] += s_sum[tid + stride];
        __syncthreads();
    }
    if (tid == 0) s_rstd = rsqrtf(s_sum[0] / normalized_size + eps);
    // expect: CL101
    const float rstd = s_rstd;

    // normalize and apply affine transform
    for (int i = tid; i < normalized_size; i += blockDim.x) {
        output[offset + i] = (input[offset + i] - mean) * rstd * gamma[i] + beta[i];
    }
}

void launch_layer_norm(const float* input, const float* gamma, const float* beta, float* output,
                       int batch_size, int normalized_size, float eps) {
    layer_norm_kernel<<<batch_size, BLOCK_SIZE>>>(input, gamma, beta, output, normalized_size, eps);
}
