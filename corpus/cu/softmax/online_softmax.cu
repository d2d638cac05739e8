#include <cuda_runtime.h>
#include <math.h>

#define BLOCK_SIZE 256
#define WARP_SIZE 32
#define NUM_WARPS (BLOCK_SIZE / WARP_SIZE)

struct MaxSum {
    float m;
    float s;
};

__device__ __forceinline__ MaxSum combine(MaxSum a, MaxSum b) {
    MaxSum r;
    r.m = fmaxf(a.m, b.m);
    r.s = (a.m == -INFINITY ? 0.0f : a.s * __expf(a.m - r.m)) +
          (b.m == -INFINITY ? 0.0f : b.s * __expf(b.m - r.m));
    return r;
}

__device__ __forceinline__ MaxSum warp_combine(MaxSum v) {
    for (int o = WARP_SIZE / 2; o > 0; o >>= 1) {
        MaxSum other;
        other.m = __shfl_xor_sync(0xffffffff, v.m, o);
        other.s = __shfl_xor_sync(0xffffffff, v.s, o);
        v = combine(v, other);
    }
    return v;
}

// Single-pass (online) softmax statistics followed by normalization.
__global__ void online_softmax_kernel(const float* __restrict__ in, float* __restrict__ out, int cols) {
    __shared__ float s_m[NUM_WARPS];
    __shared__ float s_s[NUM_WARPS];
    __shared__ MaxSum s_final;

    const int tid = threadIdx.x;
    const int lane = tid % WARP_SIZE;
    const int warp = tid / WARP_SIZE;
    const float* x = in + (size_t)blockIdx.x * cols;
    float* y = out + (size_t)blockIdx.x * cols;

    MaxSum acc = {-INFINITY, 0.0f};
    for (int j = tid; j < cols; j += BLOCK_SIZE) {
        MaxSum cur = {x[j], 1.0f};
        acc = combine(acc, cur);
    }
    acc = warp_combine(acc);
    if (lane == 0) {
        s_m[warp] = acc.m;
        s_s[warp] = acc.s;
    }
    __syncthreads();

    if (warp == 0) {
        MaxSum v = {-INFINITY, 0.0f};
        if (lane < NUM_WARPS) {
            v.m = s_m[lane];
            v.s = s_s[lane];
        }
        v = warp_combine(v);
        if (lane == 0) s_final = v;
    }
    __syncthreads();

    const float row_max = s_final.m;
    const float inv_sum = 1.0f / s_final.s;
    for (int j = tid; j < cols; j += BLOCK_SIZE) {
        y[j] = __expf(x[j] - row_max) * inv_sum;
    }
}

void launch_online_softmax(const float* in, float* out, int rows, int cols) {
    online_softmax_kernel<<<rows, BLOCK_SIZE>>>(in, out, cols);
}
