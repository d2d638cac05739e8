#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Forward difference: out[i] = in[i + 1] - in[i], staged through shared memory.
__global__ void adjacent_diff_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float s_data[BLOCK_SIZE];

    const int tid = threadIdx.x;
    const int idx = blockIdx.x * blockDim.x + tid;

    s_data[tid] = (idx < n) ? in[idx] : 0.0f;
    __syncthreads();

    if (idx < n - 1) {
        // expect: CL203
        out[idx] = s_data[tid + 1] - s_data[tid];
    }
}

void launch_adjacent_diff(const float* in, float* out, int n) {
    int threads = BLOCK_SIZE;
    int blocks = (n + threads - 1) / threads;
    adjacent_diff_kernel<<<blocks, threads>>>(in, out, n);
}
