"""Facts about torch's random stream: the torch.nn layers and modules that draw nothing, the constructor
arguments of those that do, the torch functions and Tensor methods that draw (and those that keep a tensor's
values), and the gains and fans `torch.nn.init` computes its bounds from.
"""

from __future__ import annotations

import math

from cudalint.harness.init_values import _Stop


# ------------------------------------------------------------------------------------- torch.nn facts

# layers and modules that create no parameter from the random stream
_NO_DRAW_MODULES = {
    "ReLU", "ReLU6", "GELU", "SiLU", "Mish", "Tanh", "Sigmoid", "Hardtanh", "Hardswish", "Hardsigmoid",
    "LeakyReLU", "ELU", "SELU", "CELU", "Softplus", "Softsign", "Softshrink", "Hardshrink", "Tanhshrink",
    "Threshold", "LogSigmoid", "GLU", "Softmax", "Softmax2d", "LogSoftmax", "Softmin", "PReLU", "Identity",
    "Flatten", "Unflatten", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
    "FeatureAlphaDropout", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LayerNorm",
    "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm", "RMSNorm",
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
    "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "Upsample", "UpsamplingNearest2d",
    "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "ZeroPad1d", "ZeroPad2d",
    "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d",
    "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
    "CircularPad2d", "CircularPad3d", "Fold", "Unfold", "CosineSimilarity", "PairwiseDistance",
    "MSELoss", "L1Loss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "HuberLoss",
    "SmoothL1Loss", "KLDivLoss", "TripletMarginLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
    "CosineEmbeddingLoss", "MultiMarginLoss", "SoftMarginLoss", "MultiLabelMarginLoss", "PoissonNLLLoss",
    "GaussianNLLLoss", "CTCLoss", "MultiLabelSoftMarginLoss", "TripletMarginWithDistanceLoss",
}
_CONV = {"Conv1d": 1, "Conv2d": 2, "Conv3d": 3}
_CONV_T = {"ConvTranspose1d": 1, "ConvTranspose2d": 2, "ConvTranspose3d": 3}
_CONV_ARGS = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "groups", "bias",
              "padding_mode", "device", "dtype")
_CONV_T_ARGS = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "output_padding", "groups",
                "bias", "dilation", "padding_mode", "device", "dtype")
_RNN_GATES = {"RNN": 1, "LSTM": 4, "GRU": 3}
_CELL_GATES = {"RNNCell": 1, "LSTMCell": 4, "GRUCell": 3}
_RNN_ARGS = ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional",
             "proj_size", "device", "dtype")
_PLAIN_RNN_ARGS = ("input_size", "hidden_size", "num_layers", "nonlinearity", "bias", "batch_first", "dropout",
                   "bidirectional", "device", "dtype")
_LAYER_ARGS = {
    "Linear": ("in_features", "out_features", "bias", "device", "dtype"),
    "Bilinear": ("in1_features", "in2_features", "out_features", "bias", "device", "dtype"),
    "Embedding": ("num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type",
                  "scale_grad_by_freq", "sparse", "_weight", "_freeze", "device", "dtype"),
    "MultiheadAttention": ("embed_dim", "num_heads", "dropout", "bias", "add_bias_kv", "add_zero_attn", "kdim",
                           "vdim", "batch_first", "device", "dtype"),
    "RNNCell": ("input_size", "hidden_size", "bias", "nonlinearity", "device", "dtype"),
    "LSTMCell": ("input_size", "hidden_size", "bias", "device", "dtype"),
    "GRUCell": ("input_size", "hidden_size", "bias", "device", "dtype"),
}

# torch functions that draw from the random stream (anything else of torch outside torch.nn draws nothing)
_RANDOM_FACTORIES = {"randn", "rand", "randint", "randperm", "normal", "randn_like", "rand_like", "randint_like",
                     "bernoulli", "multinomial", "poisson"}
_SEEDING = {"manual_seed", "seed", "set_rng_state", "initial_seed", "Generator", "fork_rng", "get_rng_state"}
_FACTORIES = {"empty", "zeros", "ones", "full", "Tensor", "FloatTensor", "eye"}
_LIKE_FACTORIES = {"empty_like", "zeros_like", "ones_like", "full_like"}
# Tensor methods that draw: name -> (distribution, default parameters)
_RANDOM_METHODS = {"uniform_": ("uniform", (0.0, 1.0)), "normal_": ("normal", (0.0, 1.0)),
                   "random_": ("random", None), "bernoulli_": ("bernoulli", None),
                   "exponential_": ("exponential", None), "cauchy_": ("cauchy", None),
                   "log_normal_": ("log_normal", None), "geometric_": ("geometric", None)}
# Tensor methods that keep the values (and shape, unless noted) of the tensor
_SAME_VALUES = {"data", "detach", "clone", "contiguous", "float", "cuda", "cpu", "to", "requires_grad_",
                "detach_", "share_memory_"}
_RESHAPES = {"t", "T", "transpose", "permute", "view", "reshape", "flatten", "unsqueeze", "squeeze", "expand",
             "repeat", "narrow", "chunk", "split"}
_NO_DRAW_METHODS = {"zero_", "fill_", "copy_", "clamp_", "fill_diagonal_", "masked_fill_", "data_ptr",
                    "register_hook", "retain_grad", "numel", "dim", "size", "item", "tolist", "stride",
                    "is_contiguous", "element_size", "nelement"}
_INIT_NO_DRAW = {"zeros_", "ones_", "constant_", "eye_", "dirac_", "calculate_gain"}
_GAINS = {"linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0, "conv_transpose1d": 1.0,
          "conv_transpose2d": 1.0, "conv_transpose3d": 1.0, "sigmoid": 1.0, "tanh": 5.0 / 3, "relu": math.sqrt(2.0),
          "selu": 0.75}


def _gain(nonlinearity: object, param: object) -> float:
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if not isinstance(slope, (int, float)) or isinstance(slope, bool):
            raise _Stop("leaky_relu slope not known")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if isinstance(nonlinearity, str) and nonlinearity in _GAINS:
        return _GAINS[nonlinearity]
    raise _Stop(f"gain of {nonlinearity!r}")


def _fans(shape: tuple[int, ...] | None) -> tuple[int, int]:
    if shape is None:
        raise _Stop("fan of a tensor of unknown shape")
    if len(shape) < 2:
        raise _Stop("fan of a tensor with fewer than 2 dimensions")
    receptive = 1
    for d in shape[2:]:
        receptive *= d
    return shape[1] * receptive, shape[0] * receptive
