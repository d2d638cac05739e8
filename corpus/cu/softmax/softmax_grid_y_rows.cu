#include <cuda_runtime.h>
#include <math.h>

#define BATCH 32
#define SEQ_LEN 4096
#define VOCAB 1024
#define BLOCK_SIZE 256

// Softmax over the vocab dimension for a (BATCH * SEQ_LEN, VOCAB) logits tensor.
// Rows are mapped to blockIdx.y.
__global__ void softmax_vocab_kernel(const float* __restrict__ logits, float* __restrict__ probs) {
    __shared__ float red[BLOCK_SIZE];
    const int row = blockIdx.y;
    const int tid = threadIdx.x;
    const float* x = logits + (size_t)row * VOCAB;
    float* p = probs + (size_t)row * VOCAB;

    float m = -INFINITY;
    for (int v = tid; v < VOCAB; v += BLOCK_SIZE) m = fmaxf(m, x[v]);
    red[tid] = m;
    __syncthreads();
    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();

    float sum = 0.0f;
    for (int v = tid; v < VOCAB; v += BLOCK_SIZE) sum += __expf(x[v] - m);
    red[tid] = sum;
    __syncthreads();
    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] += red[tid + s];
        __syncthreads();
    }
    const float inv = 1.0f / red[0];

    for (int v = tid; v < VOCAB; v += BLOCK_SIZE) p[v] = __expf(x[v] - m) * inv;
}

void launch_softmax_vocab(const float* logits, float* probs) {
    dim3 block(BLOCK_SIZE);
    dim3 grid(1, BATCH * SEQ_LEN);
    // expect: CL302
    softmax_vocab_kernel<<<grid, block>>>(logits, probs);
}
