#include <cuda_runtime.h>

// Direct 2-D convolution (stride 1, no padding), one thread per output element; the coordinates are
// taken off a copy of the flat index, which the store then uses.
__global__ void conv2d_kernel(const float* __restrict__ input, const float* __restrict__ weight,
                              float* __restrict__ output, int batch, int in_channels, int height, int width,
                              int out_channels, int kernel_size, int out_h, int out_w) {
    int out_idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = batch * out_channels * out_h * out_w;
    if (out_idx >= total) return;

    int t = out_idx;
    int ow = t % out_w;
    t /= out_w;
    int oh = t % out_h;
    t /= out_h;
    int oc = t % out_channels;
    int n = t / out_channels;

    float sum = 0.0f;
    for (int ic = 0; ic < in_channels; ++ic) {
        for (int kh = 0; kh < kernel_size; ++kh) {
            for (int kw = 0; kw < kernel_size; ++kw) {
                int ih = oh + kh;
                int iw = ow + kw;
                sum += input[((n * in_channels + ic) * height + ih) * width + iw] *
                       weight[((oc * in_channels + ic) * kernel_size + kh) * kernel_size + kw];
            }
        }
    }
    output[out_idx] = sum;
}

void conv2d(const float* input, const float* weight, float* output, int batch, int in_channels, int height,
            int width, int out_channels, int kernel_size) {
    int out_h = height - kernel_size + 1;
    int out_w = width - kernel_size + 1;
    int total = batch * out_channels * out_h * out_w;
    conv2d_kernel<<<(total + 255) / 256, 256>>>(input, weight, output, batch, in_channels, height, width,
                                                out_channels, kernel_size, out_h, out_w);
}
