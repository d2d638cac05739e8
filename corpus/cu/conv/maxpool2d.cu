#include <cuda_runtime.h>
#include <float.h>

// MaxPool2d (kernel k, stride s, padding p) over NCHW input; one thread per output element,
// (n, c) planes on gridDim.z.
__global__ void maxpool2d_kernel(const float* __restrict__ in, float* __restrict__ out,
                                 int H, int W, int H_out, int W_out, int k, int s, int p) {
    const int ow = blockIdx.x * blockDim.x + threadIdx.x;
    const int oh = blockIdx.y * blockDim.y + threadIdx.y;
    const size_t plane = blockIdx.z;
    if (ow >= W_out || oh >= H_out) return;

    const float* src = in + plane * H * W;
    float m = -FLT_MAX;
    for (int kh = 0; kh < k; ++kh) {
        const int ih = oh * s - p + kh;
        if (ih < 0 || ih >= H) continue;
        for (int kw = 0; kw < k; ++kw) {
            const int iw = ow * s - p + kw;
            if (iw < 0 || iw >= W) continue;
            m = fmaxf(m, src[ih * W + iw]);
        }
    }
    out[plane * H_out * W_out + oh * W_out + ow] = m;
}

void launch_maxpool2d(const float* in, float* out, int N, int C, int H, int W, int k, int s, int p) {
    const int H_out = (H + 2 * p - k) / s + 1;
    const int W_out = (W + 2 * p - k) / s + 1;
    dim3 block(16, 16);
    dim3 grid((W_out + 15) / 16, (H_out + 15) / 16, N * C);
    maxpool2d_kernel<<<grid, block>>>(in, out, H, W, H_out, W_out, k, s, p);
}
