#include <cuda_runtime.h>
#include <math.h>

#define BLOCK_SIZE 256

// Mean cross-entropy loss over a batch: loss = mean_i(logsumexp(x_i) - x_i[target_i]).
// One block per sample; block 0..B-1 add their term to *loss atomically (zeroed by the launcher).
__global__ void cross_entropy_kernel(const float* __restrict__ logits, const int* __restrict__ target,
                                     float* __restrict__ loss, int batch, int classes) {
    __shared__ float red[BLOCK_SIZE];
    const int b = blockIdx.x;
    const int tid = threadIdx.x;
    const float* x = logits + (size_t)b * classes;

    float m = -INFINITY;
    for (int c = tid; c < classes; c += BLOCK_SIZE) m = fmaxf(m, x[c]);
    red[tid] = m;
    __syncthreads();
    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();

    float se = 0.0f;
    for (int c = tid; c < classes; c += BLOCK_SIZE) se += expf(x[c] - m);
    red[tid] = se;
    __syncthreads();
    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] += red[tid + s];
        __syncthreads();
    }

    if (tid == 0) {
        const int t = target[b];
        const float x_t = (t >= 0 && t < classes) ? x[t] : 0.0f;
        atomicAdd(loss, (logf(red[0]) + m - x_t) / batch);
    }
}

void launch_cross_entropy(const float* logits, const int* target, float* loss, int batch, int classes) {
    cudaMemset(loss, 0, sizeof(float));
    cross_entropy_kernel<<<batch, BLOCK_SIZE>>>(logits, target, loss, batch, classes);
}
