#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define NUM_BINS 64
#define THREADS 256

// Histogram + normalization to a probability mass function in one kernel.
// hist must be zeroed before the launch.
__global__ void histogram_pmf_kernel(const float* __restrict__ x, unsigned int* hist, float* pmf,
                                     int n, float lo, float hi) {
    cg::grid_group grid = cg::this_grid();
    const float inv_width = NUM_BINS / (hi - lo);

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int b = (int)((x[i] - lo) * inv_width);
        b = min(max(b, 0), NUM_BINS - 1);
        atomicAdd(&hist[b], 1u);
    }

    // all counts must be final before normalizing
    // expect: CL104
    grid.sync();

    for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < NUM_BINS; b += blockDim.x * gridDim.x) {
        pmf[b] = (float)hist[b] / (float)n;
    }
}

void launch_histogram_pmf(const float* x, unsigned int* hist, float* pmf, int n, float lo, float hi) {
    int blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 264) blocks = 264;
    cudaMemset(hist, 0, NUM_BINS * sizeof(unsigned int));
    histogram_pmf_kernel<<<blocks, THREADS>>>(x, hist, pmf, n, lo, hi);
}
