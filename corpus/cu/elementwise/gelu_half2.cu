#include <cuda_runtime.h>
#include <cuda_fp16.h>

#define BLOCK_SIZE 256

__device__ __forceinline__ float gelu_tanh(float x) {
    const float kAlpha = 0.7978845608028654f;  // sqrt(2/pi)
    return 0.5f * x * (1.0f + tanhf(kAlpha * (x + 0.044715f * x * x * x)));
}

// GELU on fp16 data, two elements per thread through half2 loads.
// n2 = n / 2 pairs are handled vectorized; an odd trailing element is handled by thread 0.
__global__ void gelu_half2_kernel(const __half* __restrict__ input,
                                  __half* __restrict__ output,
                                  int n) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    const int n2 = n / 2;
    const __half2* in2 = reinterpret_cast<const __half2*>(input);
    __half2* out2 = reinterpret_cast<__half2*>(output);

    if (idx < n2) {
        float2 v = __half22float2(in2[idx]);
        v.x = gelu_tanh(v.x);
        v.y = gelu_tanh(v.y);
        out2[idx] = __float22half2_rn(v);
    }

    // tail element when n is odd
    if (idx == 0 && (n & 1)) {
        output[n - 1] = __float2half(gelu_tanh(__half2float(input[n - 1])));
    }
}

void launch_gelu_half(const __half* input, __half* output, int n) {
    int threads = BLOCK_SIZE;
    int pairs = n / 2;
    int blocks = (pairs + threads - 1) / threads;
    if (blocks == 0) blocks = 1;
    gelu_half2_kernel<<<blocks, threads>>>(input, output, n);
}
