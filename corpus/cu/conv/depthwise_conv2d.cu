#include <cuda_runtime.h>

// Depthwise 2-D convolution (groups == channels), NCHW, stride 1, zero padding 'pad'.
// Grid-stride loop over every output element.
__global__ void depthwise_conv2d_kernel(const float* __restrict__ x,
                                        const float* __restrict__ w,   // [C, 1, K, K]
                                        float* __restrict__ y,
                                        int N, int C, int H, int W, int K, int pad) {
    const int H_out = H + 2 * pad - K + 1;
    const int W_out = W + 2 * pad - K + 1;
    const long long total = (long long)N * C * H_out * W_out;

    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += (long long)blockDim.x * gridDim.x) {
        const int ow = idx % W_out;
        const int oh = (idx / W_out) % H_out;
        const int c = (idx / ((long long)W_out * H_out)) % C;
        const int n = idx / ((long long)W_out * H_out * C);

        float acc = 0.0f;
        for (int kh = 0; kh < K; ++kh) {
            const int ih = oh - pad + kh;
            if (ih < 0 || ih >= H) continue;
            for (int kw = 0; kw < K; ++kw) {
                const int iw = ow - pad + kw;
                if (iw < 0 || iw >= W) continue;
                acc += x[(((long long)n * C + c) * H + ih) * W + iw] * w[(c * K + kh) * K + kw];
            }
        }
        y[idx] = acc;
    }
}

void launch_depthwise_conv2d(const float* x, const float* w, float* y,
                             int N, int C, int H, int W, int K, int pad) {
    const long long total = (long long)N * C * (H + 2 * pad - K + 1) * (W + 2 * pad - K + 1);
    const int threads = 256;
    long long blocks = (total + threads - 1) / threads;
    if (blocks > 65535) blocks = 65535;
    depthwise_conv2d_kernel<<<(int)blocks, threads>>>(x, w, y, N, C, H, W, K, pad);
}
