#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define THREADS 256

// y = x / ||x||_2 in a single cooperative kernel: block partial sums of squares, grid-wide
// barrier, then every thread scales its elements. *norm_sq must be zero on entry.
__global__ void l2_normalize_kernel(const float* __restrict__ x, float* __restrict__ y,
                                    float* __restrict__ norm_sq, int n) {
    cg::grid_group grid = cg::this_grid();
    __shared__ float s_red[THREADS];

    float ss = 0.0f;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
        const float v = x[i];
        ss += v * v;
    }
    s_red[threadIdx.x] = ss;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) s_red[threadIdx.x] += s_red[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(norm_sq, s_red[0]);

    grid.sync();

    const float inv = rsqrtf(fmaxf(*norm_sq, 1e-24f));
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
        y[i] = x[i] * inv;
    }
}

void launch_l2_normalize(const float* x, float* y, float* norm_sq, int n) {
    int device = 0, num_sms = 0, blocks_per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, l2_normalize_kernel, THREADS, 0);
    int blocks = num_sms * blocks_per_sm;
    const int needed = (n + THREADS - 1) / THREADS;
    if (blocks > needed) blocks = needed;
    if (blocks < 1) blocks = 1;

    cudaMemset(norm_sq, 0, sizeof(float));
    void* args[] = {(void*)&x, (void*)&y, (void*)&norm_sq, (void*)&n};
    cudaLaunchCooperativeKernel((void*)l2_normalize_kernel, dim3(blocks), dim3(THREADS), args, 0, 0);
}
