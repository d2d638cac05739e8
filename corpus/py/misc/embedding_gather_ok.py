import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

embedding_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <algorithm>

// out[t, :] = weight[indices[t], :]. Blocks stride over tokens, threads stride over the embedding dim.
__global__ void embedding_gather_kernel(const int64_t* __restrict__ indices, const float* __restrict__ weight,
                                        float* __restrict__ out, int64_t num_tokens, int dim) {
    for (int64_t t = blockIdx.x; t < num_tokens; t += gridDim.x) {
        const int64_t row = indices[t];
        const float* src = weight + row * dim;
        float* dst = out + t * dim;
        for (int d = threadIdx.x; d < dim; d += blockDim.x) {
            dst[d] = src[d];
        }
    }
}

torch::Tensor embedding_cuda(torch::Tensor indices, torch::Tensor weight) {
    TORCH_CHECK(indices.scalar_type() == torch::kLong, "indices must be int64");
    auto idx = indices.contiguous();
    auto w = weight.contiguous();
    const int64_t num_tokens = idx.numel();
    const int dim = w.size(1);
    std::vector<int64_t> out_shape = idx.sizes().vec();
    out_shape.push_back(dim);
    auto out = torch::empty(out_shape, w.options());
    const int threads = 128;
    const int blocks = (int)std::min<int64_t>(num_tokens, 65535);
    embedding_gather_kernel<<<blocks, threads>>>(idx.data_ptr<int64_t>(), w.data_ptr<float>(), out.data_ptr<float>(),
                                                 num_tokens, dim);
    return out;
}
"""

embedding_cpp_source = "torch::Tensor embedding_cuda(torch::Tensor indices, torch::Tensor weight);"

embedding = load_inline(
    name="embedding_gather",
    cpp_sources=embedding_cpp_source,
    cuda_sources=embedding_source,
    functions=["embedding_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, num_embeddings, embedding_dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_embeddings, embedding_dim))
        self.embedding = embedding

    def forward(self, indices):
        return self.embedding.embedding_cuda(indices, self.weight)
