#include <cuda_runtime.h>
#include <float.h>

#define BLOCK_SIZE 256

// torch.argmax(x, dim=1) for a (rows x cols) matrix, one block per row.
// Ties resolve to the smallest index, like PyTorch.
__global__ void argmax_row_kernel(const float* __restrict__ x, long long* __restrict__ out, int cols) {
    __shared__ float s_val[BLOCK_SIZE];
    __shared__ int s_idx[BLOCK_SIZE];

    const int tid = threadIdx.x;
    const float* row = x + (size_t)blockIdx.x * cols;

    float best = -FLT_MAX;
    int best_i = 0x7fffffff;
    for (int j = tid; j < cols; j += BLOCK_SIZE) {
        const float v = row[j];
        if (v > best) { best = v; best_i = j; }
    }
    s_val[tid] = best;
    s_idx[tid] = best_i;
    __syncthreads();

    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s) {
            const float ov = s_val[tid + s];
            const int oi = s_idx[tid + s];
            if (ov > s_val[tid] || (ov == s_val[tid] && oi < s_idx[tid])) {
                s_val[tid] = ov;
                s_idx[tid] = oi;
            }
        }
        __syncthreads();
    }

    if (tid == 0) out[blockIdx.x] = s_idx[0];
}

void launch_argmax_row(const float* x, long long* out, int rows, int cols) {
    argmax_row_kernel<<<rows, BLOCK_SIZE>>>(x, out, cols);
}
