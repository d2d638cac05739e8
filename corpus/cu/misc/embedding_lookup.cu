#include <cuda_runtime.h>

// nn.Embedding forward: out[t, :] = weight[ids[t], :]; padding_idx rows produce zeros.
// 2-D launch: x over the embedding dimension, y over tokens.
__global__ void embedding_kernel(const int* __restrict__ ids, const float* __restrict__ weight,
                                 float* __restrict__ out, int num_tokens, int vocab, int dim,
                                 int padding_idx) {
    const int d = blockIdx.x * blockDim.x + threadIdx.x;
    const int t = blockIdx.y * blockDim.y + threadIdx.y;
    if (t >= num_tokens || d >= dim) return;

    const int id = ids[t];
    float v = 0.0f;
    if (id != padding_idx && id >= 0 && id < vocab) {
        v = weight[(size_t)id * dim + d];
    }
    out[(size_t)t * dim + d] = v;
}

void launch_embedding(const int* ids, const float* weight, float* out, int num_tokens, int vocab,
                      int dim, int padding_idx) {
    dim3 block(64, 4);
    dim3 grid((dim + block.x - 1) / block.x, (num_tokens + block.y - 1) / block.y);
    embedding_kernel<<<grid, block>>>(ids, weight, out, num_tokens, vocab, dim, padding_idx);
}
