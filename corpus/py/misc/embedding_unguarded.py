import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

embedding_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void embedding_kernel(const long* indices, const float* weight, float* out, int num_tokens, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int token = i / dim;
    int d = i % dim;
    // expect: CL201
    long row = indices[token];
    // expect: CL201
    out[i] = weight[row * dim + d];
}

torch::Tensor embedding_cuda(torch::Tensor indices, torch::Tensor weight) {
    int num_tokens = indices.numel();
    int dim = weight.size(1);
    auto out = torch::empty({num_tokens, dim}, weight.options());
    int total = num_tokens * dim;
    int threads = 256;
    int blocks = (total + threads - 1) / threads;
    embedding_kernel<<<blocks, threads>>>(indices.data_ptr<long>(), weight.data_ptr<float>(), out.data_ptr<float>(),
                                          num_tokens, dim);
    return out;
}
"""

embedding_cpp_source = "torch::Tensor embedding_cuda(torch::Tensor indices, torch::Tensor weight);"

embedding = load_inline(
    name="embedding_unguarded",
    cpp_sources=embedding_cpp_source,
    cuda_sources=embedding_source,
    functions=["embedding_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self, num_embeddings, embedding_dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_embeddings, embedding_dim))
        self.embedding = embedding

    def forward(self, indices):
        out = self.embedding.embedding_cuda(indices.contiguous(), self.weight)
        return out.view(*indices.shape, -1)
