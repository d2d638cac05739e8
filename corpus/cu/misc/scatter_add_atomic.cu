#include <cuda_runtime.h>

#define THREADS 256

// index_add / scatter_add along dim 0 of a (num_src x dim) source into a (num_out x dim) output:
// out[index[r], c] += src[r, c]. Duplicate indices are handled with atomics.
__global__ void scatter_add_kernel(const float* __restrict__ src, const long long* __restrict__ index,
                                   float* __restrict__ out, int num_src, int num_out, int dim) {
    const long long total = (long long)num_src * dim;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (long long)blockDim.x * gridDim.x) {
        const int r = e / dim;
        const int c = e % dim;
        const long long dst_row = index[r];
        if (dst_row >= 0 && dst_row < num_out) {
            atomicAdd(&out[dst_row * dim + c], src[e]);
        }
    }
}

void launch_scatter_add(const float* src, const long long* index, float* out,
                        int num_src, int num_out, int dim) {
    const long long total = (long long)num_src * dim;
    long long blocks = (total + THREADS - 1) / THREADS;
    if (blocks > 4096) blocks = 4096;
    scatter_add_kernel<<<(int)blocks, THREADS>>>(src, index, out, num_src, num_out, dim);
}
