#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Three-phase inclusive scan for arrays of up to BLOCK_SIZE * BLOCK_SIZE elements.

// Phase 1: scan each block, record the block total.
__global__ void scan_blocks_kernel(const float* __restrict__ in, float* __restrict__ out,
                                   float* __restrict__ block_sums, int n) {
    __shared__ float s[BLOCK_SIZE];
    const int tid = threadIdx.x;
    const int gid = blockIdx.x * BLOCK_SIZE + tid;

    s[tid] = (gid < n) ? in[gid] : 0.0f;
    __syncthreads();
    for (int off = 1; off < BLOCK_SIZE; off *= 2) {
        const float v = (tid >= off) ? s[tid - off] : 0.0f;
        __syncthreads();
        s[tid] += v;
        __syncthreads();
    }
    if (gid < n) out[gid] = s[tid];
    if (tid == BLOCK_SIZE - 1) block_sums[blockIdx.x] = s[tid];
}

// Phase 2: single block scans the block totals in place.
__global__ void scan_block_sums_kernel(float* __restrict__ block_sums, int num_blocks) {
    __shared__ float s[BLOCK_SIZE];
    const int tid = threadIdx.x;

    s[tid] = (tid < num_blocks) ? block_sums[tid] : 0.0f;
    __syncthreads();
    for (int off = 1; off < BLOCK_SIZE; off *= 2) {
        const float v = (tid >= off) ? s[tid - off] : 0.0f;
        __syncthreads();
        s[tid] += v;
        __syncthreads();
    }
    if (tid < num_blocks) block_sums[tid] = s[tid];
}

// Phase 3: add the scanned total of all preceding blocks.
__global__ void add_block_offsets_kernel(float* __restrict__ out, const float* __restrict__ block_sums, int n) {
    const int gid = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (blockIdx.x > 0 && gid < n) {
        out[gid] += block_sums[blockIdx.x - 1];
    }
}

void launch_scan(const float* in, float* out, float* block_sums, int n) {
    const int num_blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;   // must be <= BLOCK_SIZE
    scan_blocks_kernel<<<num_blocks, BLOCK_SIZE>>>(in, out, block_sums, n);
    scan_block_sums_kernel<<<1, BLOCK_SIZE>>>(block_sums, num_blocks);
    add_block_offsets_kernel<<<num_blocks, BLOCK_SIZE>>>(out, block_sums, n);
}
