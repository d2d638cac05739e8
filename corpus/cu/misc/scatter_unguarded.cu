#include <cuda_runtime.h>

// out[index[i]] = src[i]  (torch.Tensor.scatter_ along dim 0 of a 1-D tensor)
__global__ void scatter_1d_kernel(const float* src, const long long* index, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    // expect: CL201
    out[index[i]] = src[i];
}

void launch_scatter_1d(const float* src, const long long* index, float* out, int n) {
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    scatter_1d_kernel<<<blocks, threads>>>(src, index, out, n);
}
