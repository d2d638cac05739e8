# expect: CL400
import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_here = os.path.dirname(os.path.abspath(__file__))

# The kernel lives next to this file (embedding_kernel.cu); only the binding is declared here.
with open(os.path.join(_here, "embedding_kernel.cu")) as f:
    # expect: CL904
    embedding_cuda_source = f.read()

embedding_cpp_source = "torch::Tensor embedding_forward(torch::Tensor indices, torch::Tensor weight);"

embedding_ext = load_inline(
    name="embedding_from_file",
    cpp_sources=embedding_cpp_source,
    cuda_sources=embedding_cuda_source,
    functions=["embedding_forward"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, num_embeddings, embedding_dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_embeddings, embedding_dim))
        self.embedding_ext = embedding_ext

    def forward(self, indices):
        return self.embedding_ext.embedding_forward(indices.contiguous(), self.weight)
