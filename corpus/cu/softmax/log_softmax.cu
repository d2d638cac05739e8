#include <cuda_runtime.h>
#include <math.h>

#define THREADS 128

// LogSoftmax along the last dimension, one block per row.
__global__ void log_softmax_kernel(const float* __restrict__ logits,
                                   float* __restrict__ out,
                                   int num_rows, int dim) {
    __shared__ float red[THREADS];
    __shared__ float s_max;
    __shared__ float s_logsum;

    const int row = blockIdx.x;
    const int t = threadIdx.x;
    const float* src = logits + (size_t)row * dim;
    float* dst = out + (size_t)row * dim;

    float m = -INFINITY;
    for (int i = t; i < dim; i += THREADS) m = fmaxf(m, src[i]);
    red[t] = m;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    if (t == 0) s_max = red[0];
    __syncthreads();

    const float mx = s_max;
    float sum = 0.0f;
    for (int i = t; i < dim; i += THREADS) sum += expf(src[i] - mx);
    red[t] = sum;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    if (t == 0) s_logsum = logf(red[0]);
    __syncthreads();

    const float lse = mx + s_logsum;
    for (int i = t; i < dim; i += THREADS) dst[i] = src[i] - lse;
}

void launch_log_softmax(const float* logits, float* out, int num_rows, int dim) {
    log_softmax_kernel<<<num_rows, THREADS>>>(logits, out, num_rows, dim);
}
