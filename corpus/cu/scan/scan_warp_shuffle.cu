#include <cuda_runtime.h>

#define BLOCK_SIZE 1024
#define WARP_SIZE 32
#define NUM_WARPS (BLOCK_SIZE / WARP_SIZE)

// Block-wide inclusive scan built from warp shuffles: scan within each warp, scan the
// warp totals in warp 0, then add the preceding warps' totals.
__global__ void warp_scan_kernel(const int* __restrict__ in, int* __restrict__ out, int n) {
    __shared__ int warp_totals[NUM_WARPS];

    const int tid = threadIdx.x;
    const int lane = tid % WARP_SIZE;
    const int warp = tid / WARP_SIZE;
    const int gid = blockIdx.x * BLOCK_SIZE + tid;

    int v = (gid < n) ? in[gid] : 0;
    #pragma unroll
    for (int o = 1; o < WARP_SIZE; o <<= 1) {
        const int y = __shfl_up_sync(0xffffffff, v, o);
        if (lane >= o) v += y;
    }
    if (lane == WARP_SIZE - 1) warp_totals[warp] = v;
    __syncthreads();

    if (warp == 0) {
        int t = warp_totals[lane];   // NUM_WARPS == WARP_SIZE
        #pragma unroll
        for (int o = 1; o < WARP_SIZE; o <<= 1) {
            const int y = __shfl_up_sync(0xffffffff, t, o);
            if (lane >= o) t += y;
        }
        warp_totals[lane] = t;
    }
    __syncthreads();

    if (warp > 0) v += warp_totals[warp - 1];
    if (gid < n) out[gid] = v;
}

void launch_warp_scan(const int* in, int* out, int n) {
    const int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    warp_scan_kernel<<<blocks, BLOCK_SIZE>>>(in, out, n);
}
