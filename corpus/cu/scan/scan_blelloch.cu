#include <cuda_runtime.h>

#define BLOCK_SIZE 256
#define ELEMS (2 * BLOCK_SIZE)

// Work-efficient exclusive scan (Blelloch), each block scans 2*BLOCK_SIZE elements.
// Per-block totals go to block_sums (may be null) for a multi-level scan.
__global__ void blelloch_scan_kernel(const float* __restrict__ in,
                                     float* __restrict__ out,
                                     float* __restrict__ block_sums,
                                     int n) {
    __shared__ float temp[ELEMS];

    const int tid = threadIdx.x;
    const int base = blockIdx.x * ELEMS;
    const int ai = tid;
    const int bi = tid + BLOCK_SIZE;

    temp[ai] = (base + ai < n) ? in[base + ai] : 0.0f;
    temp[bi] = (base + bi < n) ? in[base + bi] : 0.0f;

    // up-sweep (reduce) phase
    int offset = 1;
    for (int d = ELEMS >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            const int a = offset * (2 * tid + 1) - 1;
            const int b = offset * (2 * tid + 2) - 1;
            temp[b] += temp[a];
        }
        offset <<= 1;
    }

    if (tid == 0) {
        if (block_sums != nullptr) block_sums[blockIdx.x] = temp[ELEMS - 1];
        temp[ELEMS - 1] = 0.0f;
    }

    // down-sweep phase
    for (int d = 1; d < ELEMS; d <<= 1) {
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            const int a = offset * (2 * tid + 1) - 1;
            const int b = offset * (2 * tid + 2) - 1;
            const float t = temp[a];
            temp[a] = temp[b];
            temp[b] += t;
        }
    }
    __syncthreads();

    if (base + ai < n) out[base + ai] = temp[ai];
    if (base + bi < n) out[base + bi] = temp[bi];
}

void launch_blelloch_scan(const float* in, float* out, float* block_sums, int n) {
    const int blocks = (n + ELEMS - 1) / ELEMS;
    blelloch_scan_kernel<<<blocks, BLOCK_SIZE>>>(in, out, block_sums, n);
}
