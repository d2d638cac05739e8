#include <cuda_runtime.h>
#include <float.h>

#define K 8
#define THREADS 128

// Top-K (K = 8) values and indices per row; one thread per row keeps a sorted list
// in registers (rows are short, e.g. MoE router logits over 64 experts).
__global__ void topk_per_row_kernel(const float* __restrict__ logits, float* __restrict__ top_vals,
                                    int* __restrict__ top_idx, int rows, int cols) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;

    float vals[K];
    int idx[K];
    #pragma unroll
    for (int k = 0; k < K; ++k) { vals[k] = -FLT_MAX; idx[k] = -1; }

    for (int c = 0; c < cols; ++c) {
        const float v = logits[(size_t)row * cols + c];
        if (v <= vals[K - 1]) continue;
        int pos = K - 1;
        while (pos > 0 && vals[pos - 1] < v) {
            vals[pos] = vals[pos - 1];
            idx[pos] = idx[pos - 1];
            --pos;
        }
        vals[pos] = v;
        idx[pos] = c;
    }

    #pragma unroll
    for (int k = 0; k < K; ++k) {
        top_vals[(size_t)row * K + k] = vals[k];
        top_idx[(size_t)row * K + k] = idx[k];
    }
}

void launch_topk(const float* logits, float* top_vals, int* top_idx, int rows, int cols) {
    const int blocks = (rows + THREADS - 1) / THREADS;
    topk_per_row_kernel<<<blocks, THREADS>>>(logits, top_vals, top_idx, rows, cols);
}
