"""The shapes (and dtypes) torch operations produce from the shapes of their inputs.

One table of torch's shape rules, shared by the readers of Python forwards (`harness.output_shape`) and
of C++ wrappers: elementwise functions and broadcasting, reductions with `dim`/`keepdim`, views and
reshapes, matmul and linear, cat/stack, convolutions, transposed convolutions, pooling, padding and
interpolation. A tensor argument is anything with a `shape` tuple and a `dtype` (a dtype name or None);
a `DType` argument is a dtype. `apply_op` returns a `TensorType`, a tuple of them (`max(x, dim)`), or
None when the result is not known exactly: an unknown argument, a call torch would reject, an
operation the table does not hold. Unknown is never guessed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class TensorType:
    shape: tuple[int, ...]
    dtype: str | None  # "float32", ...; None when not known


@dataclass(frozen=True)
class DType:
    name: str  # "float32", "float16", "int64", ...


class _NotKnown(Exception):
    """The result is not known exactly."""


class Rejected(_NotKnown):
    """torch raises for these arguments, all of them known exactly: `reason` says what torch checks."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_REQUIRED = object()
_UNSET = object()  # a keepdim not given (False, but torch tells it from one given)
FLOAT_DTYPES = {"float32", "float16", "bfloat16", "float64"}


def is_tensor(value: object) -> bool:
    return isinstance(getattr(value, "shape", None), tuple) and hasattr(value, "dtype") \
        and not isinstance(value, (tuple, list))


def _tensor(value: object) -> TensorType:
    if not is_tensor(value):
        raise _NotKnown
    shape = value.shape
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise _NotKnown
    return TensorType(shape, value.dtype)


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _NotKnown
    return value


def _bool(value: object) -> bool:
    if not isinstance(value, (bool, int)):
        raise _NotKnown
    return bool(value)


def _ints(value: object, count: int | None = None) -> tuple[int, ...]:
    """An int, or a tuple/list of ints; an int is repeated `count` times."""
    if isinstance(value, (tuple, list)):
        found = tuple(_int(v) for v in value)
        if count is not None and len(found) == 1:
            found *= count
        if count is not None and len(found) != count:
            raise _NotKnown
        return found
    single = _int(value)
    return (single,) * (count or 1)


def _dim(value: object, ndim: int) -> int:
    dim = _int(value)
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise _NotKnown
    return dim % max(ndim, 1)


def _dims(value: object, ndim: int) -> tuple[int, ...]:
    dims = tuple(_dim(d, ndim) for d in value) if isinstance(value, (tuple, list)) else (_dim(value, ndim),)
    if len(set(dims)) != len(dims):
        raise _NotKnown
    return dims


def broadcast(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    ndim = max(len(s) for s in shapes)
    result = []
    for axis in range(ndim):
        sizes = {s[axis - ndim + len(s)] for s in shapes if axis - ndim + len(s) >= 0}
        sizes.discard(1)
        if len(sizes) > 1:
            raise _NotKnown  # torch raises: not a shape
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


def _promote(*dtypes: str | None) -> str | None:
    known = set(dtypes)
    if None in known:
        return None
    if len(known) == 1:
        return known.pop()
    floats = known & FLOAT_DTYPES
    return floats.pop() if len(floats) == 1 else None


def _operand(value: object) -> tuple[tuple[int, ...], str | None, bool]:
    """(shape, dtype, is a tensor) of a tensor or Python number operand."""
    if is_tensor(value):
        tensor = _tensor(value)
        return tensor.shape, tensor.dtype, True
    if isinstance(value, bool):
        return (), "bool", False
    if isinstance(value, int):
        return (), "int64", False
    if isinstance(value, float):
        return (), "float32", False
    raise _NotKnown


def elementwise(*operands: object, dtype: str | None = "") -> TensorType:
    """The broadcast result of operands (tensors and Python numbers); `dtype` "" means the promoted one."""
    parts = [_operand(o) for o in operands]
    if not any(is_tensor_part for _, _, is_tensor_part in parts):
        raise _NotKnown
    shape = broadcast(*(p[0] for p in parts))
    if dtype == "":
        tensor_dtypes = [d for _, d, is_tensor_part in parts if is_tensor_part]
        dtype = _promote(*tensor_dtypes)
        if dtype is not None and dtype not in FLOAT_DTYPES and any(
                d == "float32" for _, d, t in parts if not t):
            dtype = "float32"  # an integer tensor times a Python float
    return TensorType(shape, dtype)


# ------------------------------------------------------------------------------------- rule families


def _same(b: dict) -> TensorType:
    return _tensor(b["input"])


def _binary(b: dict) -> TensorType:
    return elementwise(b["input"], b["other"])


def _comparison(b: dict) -> TensorType:
    return elementwise(b["input"], b["other"], dtype="bool")


def _ternary(b: dict) -> TensorType:
    return elementwise(b["input"], b["tensor1"], b["tensor2"])


def _where(b: dict) -> TensorType:
    result = elementwise(b["input"], b["other"])
    return TensorType(broadcast(result.shape, _tensor(b["condition"]).shape), result.dtype)


def _clamp(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    bounds = [v for v in (b["min"], b["max"]) if is_tensor(v)]
    return elementwise(tensor, *bounds) if bounds else tensor


def _masked_fill(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    if broadcast(tensor.shape, _tensor(b["mask"]).shape) != tensor.shape:
        raise _NotKnown
    return tensor


def _cast(dtype: str) -> Callable[[dict], TensorType]:
    return lambda b: TensorType(_tensor(b["input"]).shape, dtype)


def _to(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    dtype = tensor.dtype
    for value in b["args"]:
        if isinstance(value, DType):
            dtype = value.name
        elif is_tensor(value):
            dtype = value.dtype
        elif not isinstance(value, (str, bool)) and value is not None:
            raise _NotKnown  # a device object, or something unknown
    if isinstance(b["dtype"], DType):
        dtype = b["dtype"].name
    elif b["dtype"] is not None:
        raise _NotKnown
    return TensorType(tensor.shape, dtype)


def _reduced(tensor: TensorType, dim: object, keepdim: object, dtype: str | None,
             empty_means_all: bool = False) -> TensorType:
    ndim = len(tensor.shape)
    if dim is None or (empty_means_all and isinstance(dim, (tuple, list)) and not dim):
        dims = tuple(range(ndim))
    else:
        dims = _dims(dim, ndim)
    keep = keepdim is not _UNSET and _bool(keepdim)
    shape = tuple((1 if keep else None) if axis in dims else size for axis, size in enumerate(tensor.shape))
    return TensorType(tuple(s for s in shape if s is not None), dtype)


def _reduction(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    dtype = b["dtype"].name if isinstance(b.get("dtype"), DType) else tensor.dtype
    if b.get("dtype") is not None and not isinstance(b.get("dtype"), DType):
        raise _NotKnown
    if b["dim"] is None and b["keepdim"] is not _UNSET:
        raise _NotKnown  # torch has no whole-tensor reduction taking keepdim
    return _reduced(tensor, b["dim"], b["keepdim"], dtype, empty_means_all=True)


def _index_reduction(b: dict) -> TensorType:
    return _reduced(_tensor(b["input"]), b["dim"], b["keepdim"], "int64")


def _bool_reduction(b: dict) -> TensorType:
    return _reduced(_tensor(b["input"]), b["dim"], b["keepdim"], "bool")


def _statistic(b: dict) -> TensorType:
    """var/std: (input, dim, unbiased, keepdim) or (input, dim, keepdim=..., correction=...)."""
    if b["unbiased"] is not None and not isinstance(b["unbiased"], bool):
        raise _NotKnown
    tensor = _tensor(b["input"])
    return _reduced(tensor, b["dim"], b["keepdim"], tensor.dtype)


def _norm(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    if not isinstance(b["p"], (int, float, str)) or b["dtype"] is not None:
        raise _NotKnown
    return _reduced(tensor, b["dim"], b["keepdim"], tensor.dtype)


def _values_and_indices(b: dict) -> TensorType | tuple[TensorType, TensorType]:
    """max/min/median: the whole tensor -> a scalar; with `dim` -> (values, indices); with a tensor
    `other` (max, min) -> elementwise."""
    tensor = _tensor(b["input"])
    dim = b["dim"]
    if is_tensor(dim):
        return elementwise(tensor, dim)
    if dim is None:
        if b["keepdim"]:
            raise _NotKnown
        return TensorType((), tensor.dtype)
    if isinstance(dim, (tuple, list)):
        raise _NotKnown  # torch takes one dimension here
    values = _reduced(tensor, dim, b["keepdim"], tensor.dtype)
    return ValuesIndices((values, TensorType(values.shape, "int64")))


class ValuesIndices(tuple):
    """The (values, indices) pair of max/min/median over a dimension, as torch's named tuple."""

    @property
    def values(self) -> TensorType:
        return self[0]

    @property
    def indices(self) -> TensorType:
        return self[1]


def _cumulative(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    _dim(b["dim"], len(tensor.shape))
    return tensor


def _softmax(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    if b["dim"] is None:
        raise _NotKnown  # the implicit-dim choice of old torch
    _dim(b["dim"], len(tensor.shape))
    dtype = b["dtype"].name if isinstance(b["dtype"], DType) else tensor.dtype
    return TensorType(tensor.shape, dtype)


def _sizes(b: dict) -> tuple[int, ...]:
    """The sizes of view/reshape/expand/repeat/permute: one tuple, or the integers given one by one."""
    args = b["args"]
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = list(args[0])
    if not args:
        raise _NotKnown
    return tuple(_int(a) for a in args)


def _view(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    sizes = _sizes(b)
    total = math.prod(tensor.shape)
    if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
        raise _NotKnown
    if -1 in sizes:
        rest = math.prod(s for s in sizes if s != -1)
        if rest == 0 or total % rest:
            raise _NotKnown
        sizes = tuple(total // rest if s == -1 else s for s in sizes)
    if math.prod(sizes) != total:
        raise Rejected(f"shape '{list(sizes)}' is invalid for input of size {total}")
    return TensorType(sizes, tensor.dtype)


def _view_as(b: dict) -> TensorType:
    tensor, other = _tensor(b["input"]), _tensor(b["other"])
    if math.prod(tensor.shape) != math.prod(other.shape):
        raise _NotKnown
    return TensorType(other.shape, tensor.dtype)


def _flatten(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    if not tensor.shape:
        return TensorType((1,), tensor.dtype)
    start, end = _dim(b["start_dim"], len(tensor.shape)), _dim(b["end_dim"], len(tensor.shape))
    if start > end:
        raise _NotKnown
    shape = tensor.shape[:start] + (math.prod(tensor.shape[start:end + 1]),) + tensor.shape[end + 1:]
    return TensorType(shape, tensor.dtype)


def _unflatten(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    dim = _dim(b["dim"], len(tensor.shape))
    inner = _view({"input": TensorType((tensor.shape[dim],), None), "args": [b["sizes"]]})
    return TensorType(tensor.shape[:dim] + inner.shape + tensor.shape[dim + 1:], tensor.dtype)


def _squeeze(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    dims = range(len(tensor.shape)) if b["dim"] is None else _dims(b["dim"], len(tensor.shape))
    shape = tuple(s for axis, s in enumerate(tensor.shape) if not (axis in dims and s == 1))
    return TensorType(shape, tensor.dtype)


def _unsqueeze(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    dim = _int(b["dim"])
    ndim = len(tensor.shape) + 1
    if not -ndim <= dim < ndim:
        raise _NotKnown
    dim %= ndim
    return TensorType(tensor.shape[:dim] + (1,) + tensor.shape[dim:], tensor.dtype)


def _permute(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    dims = _dims(_sizes(b), len(tensor.shape))
    if len(dims) != len(tensor.shape):
        raise _NotKnown
    return TensorType(tuple(tensor.shape[d] for d in dims), tensor.dtype)


def _transpose(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    if not tensor.shape:
        return tensor
    a, c = _dim(b["dim0"], len(tensor.shape)), _dim(b["dim1"], len(tensor.shape))
    shape = list(tensor.shape)
    shape[a], shape[c] = shape[c], shape[a]
    return TensorType(tuple(shape), tensor.dtype)


def _t(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    if len(tensor.shape) > 2:
        raise _NotKnown
    return TensorType(tuple(reversed(tensor.shape)), tensor.dtype)


def _expand(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    sizes = _sizes(b)
    if len(sizes) < len(tensor.shape):
        raise _NotKnown
    padded = (None,) * (len(sizes) - len(tensor.shape)) + tensor.shape
    shape = []
    for size, current in zip(sizes, padded):
        if size == -1:
            if current is None:
                raise _NotKnown
            shape.append(current)
        elif current in (None, 1, size):
            shape.append(size)
        else:
            raise _NotKnown
    return TensorType(tuple(shape), tensor.dtype)


def _expand_as(b: dict) -> TensorType:
    other = _tensor(b["other"])
    return _expand({"input": b["input"], "args": [other.shape]})


def _repeat(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    sizes = _sizes(b)
    if len(sizes) < len(tensor.shape):
        raise _NotKnown
    padded = (1,) * (len(sizes) - len(tensor.shape)) + tensor.shape
    return TensorType(tuple(s * r for s, r in zip(padded, sizes)), tensor.dtype)


def _narrow(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    dim = _dim(b["dim"], len(tensor.shape))
    start, length = _int(b["start"]), _int(b["length"])
    size = tensor.shape[dim]
    start %= size if start < 0 else size + 1
    if length < 0 or start + length > size:
        raise _NotKnown
    return TensorType(tensor.shape[:dim] + (length,) + tensor.shape[dim + 1:], tensor.dtype)


def _select(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    dim = _dim(b["dim"], len(tensor.shape))
    index = _int(b["index"])
    if not -tensor.shape[dim] <= index < tensor.shape[dim]:
        raise _NotKnown
    return TensorType(tensor.shape[:dim] + tensor.shape[dim + 1:], tensor.dtype)


def _matmul(b: dict) -> TensorType:
    a, c = _tensor(b["input"]), _tensor(b["other"])
    dtype = _promote(a.dtype, c.dtype)
    if not a.shape or not c.shape:
        raise _NotKnown
    if len(a.shape) == 1 and len(c.shape) == 1:
        if a.shape != c.shape:
            raise _NotKnown
        return TensorType((), dtype)
    left = a.shape if len(a.shape) > 1 else (1,) + a.shape
    right = c.shape if len(c.shape) > 1 else c.shape + (1,)
    if left[-1] != right[-2]:
        raise _NotKnown
    batch = broadcast(left[:-2], right[:-2])
    shape = batch + (left[-2],) * (len(a.shape) > 1) + (right[-1],) * (len(c.shape) > 1)
    return TensorType(shape, dtype)


def _mm(b: dict) -> TensorType:
    a, c = _tensor(b["input"]), _tensor(b["other"])
    if len(a.shape) != 2 or len(c.shape) != 2:
        raise _NotKnown
    return _matmul(b)


def _bmm(b: dict) -> TensorType:
    a, c = _tensor(b["input"]), _tensor(b["other"])
    if len(a.shape) != 3 or len(c.shape) != 3 or a.shape[0] != c.shape[0]:
        raise _NotKnown
    return _matmul(b)


def _addmm(b: dict) -> TensorType:
    product = _mm({"input": b["mat1"], "other": b["mat2"]})
    if broadcast(_tensor(b["input"]).shape, product.shape) != product.shape:
        raise _NotKnown
    return product


def _baddbmm(b: dict) -> TensorType:
    product = _bmm({"input": b["batch1"], "other": b["batch2"]})
    if broadcast(_tensor(b["input"]).shape, product.shape) != product.shape:
        raise _NotKnown
    return product


def _linear(b: dict) -> TensorType:
    tensor, weight = _tensor(b["input"]), _tensor(b["weight"])
    if not tensor.shape or len(weight.shape) not in (1, 2):
        raise _NotKnown
    if tensor.shape[-1] != weight.shape[-1]:
        raise Rejected(f"mat1 and mat2 shapes cannot be multiplied (input {list(tensor.shape)}, weight "
                       f"{list(weight.shape)})")
    out = tensor.shape[:-1] + weight.shape[:-1]
    if b["bias"] is not None and broadcast(_tensor(b["bias"]).shape, out) != out:
        raise _NotKnown
    return TensorType(out, _promote(tensor.dtype, weight.dtype))


def _cat(b: dict) -> TensorType:
    tensors = b["tensors"]
    if not isinstance(tensors, (tuple, list)) or not tensors:
        raise _NotKnown
    parts = [_tensor(t) for t in tensors]
    ndim = len(parts[0].shape)
    if ndim == 0 or any(len(p.shape) != ndim for p in parts):
        raise _NotKnown  # torch's legacy rule for 1-D empty tensors is left unknown
    dim = _dim(b["dim"], ndim)
    if any(p.shape[:dim] + p.shape[dim + 1:] != parts[0].shape[:dim] + parts[0].shape[dim + 1:] for p in parts):
        raise _NotKnown
    shape = parts[0].shape[:dim] + (sum(p.shape[dim] for p in parts),) + parts[0].shape[dim + 1:]
    return TensorType(shape, _promote(*(p.dtype for p in parts)))


def _stack(b: dict) -> TensorType:
    tensors = b["tensors"]
    if not isinstance(tensors, (tuple, list)) or not tensors:
        raise _NotKnown
    parts = [_tensor(t) for t in tensors]
    if any(p.shape != parts[0].shape for p in parts):
        raise _NotKnown
    ndim = len(parts[0].shape) + 1
    dim = _int(b["dim"])
    if not -ndim <= dim < ndim:
        raise _NotKnown
    dim %= ndim
    shape = parts[0].shape[:dim] + (len(parts),) + parts[0].shape[dim:]
    return TensorType(shape, _promote(*(p.dtype for p in parts)))


def _spatial(tensor: TensorType, dims: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(leading dimensions, spatial dimensions) of a batched or unbatched input of a `dims`-d layer."""
    if len(tensor.shape) not in (dims + 1, dims + 2):
        raise _NotKnown
    return tensor.shape[:-dims], tensor.shape[-dims:]


def _check_bias(bias: object, channels: int) -> None:
    """A convolution's bias: None, or one value per output channel (else torch raises)."""
    if bias is not None and _tensor(bias).shape != (channels,):
        raise Rejected(f"expected bias to be 1-dimensional with {channels} elements, but got bias of size "
                       f"{list(_tensor(bias).shape)}")


def _conv(dims: int) -> Callable[[dict], TensorType]:
    def rule(b: dict) -> TensorType:
        tensor, weight = _tensor(b["input"]), _tensor(b["weight"])
        lead, spatial = _spatial(tensor, dims)
        groups = _int(b["groups"])
        if len(weight.shape) != dims + 2 or groups <= 0 or weight.shape[0] % groups:
            raise _NotKnown
        if lead[-1] != weight.shape[1] * groups:
            raise Rejected(f"weight of size {list(weight.shape)}, expected input{list(tensor.shape)} to have "
                           f"{weight.shape[1] * groups} channels, but got {lead[-1]} channels instead")
        kernel = weight.shape[2:]
        stride, dilation = _ints(b["stride"], dims), _ints(b["dilation"], dims)
        padding = b["padding"]
        if padding == "valid":
            padding = 0
        if padding == "same":
            if any(s != 1 for s in stride):
                raise _NotKnown
            out = spatial
        else:
            padding = _ints(padding, dims)
            out = tuple((size + 2 * p - d * (k - 1) - 1) // s + 1
                        for size, p, d, k, s in zip(spatial, padding, dilation, kernel, stride))
        if any(o <= 0 for o in out) or any(s <= 0 for s in stride):
            raise _NotKnown
        _check_bias(b["bias"], weight.shape[0])
        return TensorType(lead[:-1] + (weight.shape[0],) + out, _promote(tensor.dtype, weight.dtype))
    return rule


def _conv_transpose(dims: int) -> Callable[[dict], TensorType]:
    def rule(b: dict) -> TensorType:
        tensor, weight = _tensor(b["input"]), _tensor(b["weight"])
        lead, spatial = _spatial(tensor, dims)
        groups = _int(b["groups"])
        if len(weight.shape) != dims + 2 or groups <= 0 or weight.shape[0] % groups:
            raise _NotKnown
        if lead[-1] != weight.shape[0]:
            raise Rejected(f"given transposed=1, weight of size {list(weight.shape)}, expected input"
                           f"{list(tensor.shape)} to have {weight.shape[0]} channels, but got {lead[-1]} channels "
                           f"instead")
        kernel = weight.shape[2:]
        stride, padding = _ints(b["stride"], dims), _ints(b["padding"], dims)
        output_padding, dilation = _ints(b["output_padding"], dims), _ints(b["dilation"], dims)
        out = tuple((size - 1) * s - 2 * p + d * (k - 1) + op + 1
                    for size, s, p, d, k, op in zip(spatial, stride, padding, dilation, kernel, output_padding))
        if any(o <= 0 for o in out) or any(op >= max(s, d) for op, s, d in zip(output_padding, stride, dilation)):
            raise _NotKnown
        _check_bias(b["bias"], weight.shape[1] * groups)
        return TensorType(lead[:-1] + (weight.shape[1] * groups,) + out, _promote(tensor.dtype, weight.dtype))
    return rule


def _pooled(size: int, kernel: int, stride: int, padding: int, dilation: int, ceil_mode: bool) -> int:
    if stride <= 0 or kernel <= 0 or padding * 2 > kernel:
        raise _NotKnown
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    out = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    if out <= 0:
        raise _NotKnown
    return out


def _pool(dims: int, dilated: bool) -> Callable[[dict], TensorType | tuple[TensorType, TensorType]]:
    def rule(b: dict) -> TensorType | tuple[TensorType, TensorType]:
        tensor = _tensor(b["input"])
        lead, spatial = _spatial(tensor, dims)
        kernel = _ints(b["kernel_size"], dims)
        stride = kernel if b["stride"] is None or b["stride"] in ((), []) else _ints(b["stride"], dims)
        padding = _ints(b["padding"], dims)
        dilation = _ints(b["dilation"], dims) if dilated else (1,) * dims
        ceil_mode = _bool(b["ceil_mode"])
        out = tuple(_pooled(*args, ceil_mode) for args in zip(spatial, kernel, stride, padding, dilation))
        result = TensorType(lead + out, tensor.dtype)
        if dilated and _bool(b["return_indices"]):
            return ValuesIndices((result, TensorType(result.shape, "int64")))
        return result
    return rule


def _adaptive(dims: int, indices: bool) -> Callable[[dict], TensorType | tuple[TensorType, TensorType]]:
    def rule(b: dict) -> TensorType | tuple[TensorType, TensorType]:
        tensor = _tensor(b["input"])
        lead, spatial = _spatial(tensor, dims)
        size = b["output_size"]
        sizes = list(size) if isinstance(size, (tuple, list)) else [size] * dims
        if len(sizes) == 1:
            sizes *= dims
        if len(sizes) != dims:
            raise _NotKnown
        out = tuple(current if s is None else _int(s) for s, current in zip(sizes, spatial))
        result = TensorType(lead + out, tensor.dtype)
        if indices and _bool(b["return_indices"]):
            return ValuesIndices((result, TensorType(result.shape, "int64")))
        return result
    return rule


def _pad(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    pad = _ints(b["pad"])
    if len(pad) % 2 or len(pad) // 2 > len(tensor.shape):
        raise _NotKnown
    shape = list(tensor.shape)
    for index in range(len(pad) // 2):
        shape[-1 - index] += pad[2 * index] + pad[2 * index + 1]
    if any(s < 0 for s in shape):
        raise _NotKnown
    return TensorType(tuple(shape), tensor.dtype)


def _interpolate(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    if len(tensor.shape) < 3 or b["recompute_scale_factor"]:
        raise _NotKnown
    dims = len(tensor.shape) - 2
    if b["size"] is not None and b["scale_factor"] is None:
        out = _ints(b["size"], dims)
    elif b["size"] is None and isinstance(b["scale_factor"], (int, float, tuple, list)):
        factors = b["scale_factor"] if isinstance(b["scale_factor"], (tuple, list)) else (b["scale_factor"],) * dims
        if len(factors) != dims or not all(isinstance(f, (int, float)) and not isinstance(f, bool) for f in factors):
            raise _NotKnown
        out = tuple(math.floor(s * float(f)) for s, f in zip(tensor.shape[2:], factors))
    else:
        raise _NotKnown
    return TensorType(tensor.shape[:2] + out, tensor.dtype)


def _pixel_shuffle(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    r = _int(b["upscale_factor"])
    if len(tensor.shape) < 3 or r <= 0 or tensor.shape[-3] % (r * r):
        raise _NotKnown
    *lead, c, h, w = tensor.shape
    return TensorType((*lead, c // (r * r), h * r, w * r), tensor.dtype)


def _group_norm(b: dict) -> TensorType:
    """torch's checks of `group_norm(input, num_groups, weight, bias, ...)`: channels (dimension 1) divisible
    by the groups, and an affine weight and bias of one value per channel. The result has the input's shape;
    a check whose arguments are not all known is not made."""
    tensor = _tensor(b["input"])
    if len(tensor.shape) < 2:
        raise _NotKnown
    channels = tensor.shape[1]
    groups = b["num_groups"]
    if isinstance(groups, int) and not isinstance(groups, bool) and groups > 0 and channels % groups:
        raise Rejected(f"expected number of channels in input to be divisible by num_groups, but got input of "
                       f"shape {list(tensor.shape)} and num_groups={groups}")
    for name in ("weight", "bias"):
        shape = _known_shape(b[name])
        if shape is not None and shape != (channels,):
            raise Rejected(f"expected {name} to be a vector of size equal to the number of channels in input, but "
                           f"got {name} of shape {list(shape)} and input of shape {list(tensor.shape)}")
    return tensor


def _layer_norm(b: dict) -> TensorType:
    """torch's checks of `layer_norm(input, normalized_shape, weight, bias, ...)`: the input ends in the
    normalized shape, and an affine weight and bias have that shape. The result has the input's shape; a
    check whose arguments are not all known is not made."""
    tensor = _tensor(b["input"])
    try:
        normalized = _ints(b["normalized_shape"])
    except _NotKnown:
        return tensor
    if not normalized:
        return tensor
    if tensor.shape[max(len(tensor.shape) - len(normalized), 0):] != normalized:
        raise Rejected(f"given normalized_shape={list(normalized)}, expected input with shape "
                       f"[*, {', '.join(map(str, normalized))}], but got input of size{list(tensor.shape)}")
    for name in ("weight", "bias"):
        shape = _known_shape(b[name])
        if shape is not None and shape != normalized:
            raise Rejected(f"expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                           f"{list(shape)} and normalized_shape = {list(normalized)}")
    return tensor


def _known_shape(value: object) -> tuple[int, ...] | None:
    """The shape of a tensor argument known exactly; None for None (no affine parameter) or one not known."""
    try:
        return _tensor(value).shape if value is not None else None
    except _NotKnown:
        return None


def _glu(b: dict) -> TensorType:
    tensor = _tensor(b["input"])
    dim = _dim(b["dim"], len(tensor.shape))
    if tensor.shape[dim] % 2:
        raise _NotKnown
    return TensorType(tensor.shape[:dim] + (tensor.shape[dim] // 2,) + tensor.shape[dim + 1:], tensor.dtype)


# --------------------------------------------------------------------------------------------- table

_UNARY = (
    "relu", "relu6", "sigmoid", "tanh", "gelu", "silu", "mish", "elu", "selu", "celu", "leaky_relu", "hardtanh",
    "hardswish", "hardsigmoid", "softplus", "softsign", "logsigmoid", "tanhshrink", "softshrink", "hardshrink",
    "threshold", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "abs", "absolute",
    "neg", "negative", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
    "sign", "sgn", "floor", "ceil", "round", "trunc", "frac", "reciprocal", "square", "erf", "erfc", "erfinv",
    "nan_to_num", "dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d",
    "normalize", "batch_norm", "instance_norm", "local_response_norm", "rms_norm",
    "tril", "triu", "flip", "roll", "contiguous", "clone", "detach", "cpu", "cuda", "requires_grad_",
    "rrelu", "prelu", "logit", "sigmoid_", "relu_", "tanh_", "exp_", "abs_", "neg_", "sqrt_", "clamp_",
    "clamp_min_", "clamp_max_", "leaky_relu_", "elu_", "hardtanh_", "zero_", "fill_", "mul_", "add_", "sub_",
    "div_", "pow_", "copy_", "uniform_", "normal_", "masked_fill_", "nan_to_num_", "floor_", "ceil_",
    "round_", "log_", "reciprocal_", "detach_", "hardswish_", "silu_", "gelu_", "mish_", "selu_", "celu_",
    "relu6_", "hardsigmoid_", "softplus_", "square_", "rsqrt_", "sign_", "trunc_", "frac_", "erf_",
)
_BINARY_OPS = ("add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
               "pow", "maximum", "minimum", "fmax", "fmin", "remainder", "fmod", "atan2", "hypot", "rsub",
               "logaddexp", "xlogy", "copysign", "bitwise_and", "bitwise_or", "bitwise_xor")
_COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge", "greater", "less", "greater_equal", "less_equal",
                "not_equal", "logical_and", "logical_or", "logical_xor", "isclose")

Rule = Callable[[dict], object]
_TABLE: dict[str, tuple[tuple[tuple[str, object], ...], Rule]] = {}


def _define(names: tuple[str, ...] | str, params: tuple, rule: Rule) -> None:
    spec = tuple((p, _REQUIRED) if isinstance(p, str) else p for p in params)
    for name in (names,) if isinstance(names, str) else names:
        _TABLE[name] = (spec, rule)


_define(_UNARY, ("input", ("*", None), ("**", None)), _same)
_define(_BINARY_OPS + tuple(n + "_" for n in _BINARY_OPS), ("input", "other", ("alpha", 1), ("rounding_mode", None)),
        _binary)
_define(_COMPARISONS, ("input", "other"), _comparison)
_define(("addcmul", "addcdiv", "lerp"), ("input", "tensor1", "tensor2", ("value", 1)), _ternary)
_define("where", ("condition", "input", "other"), _where)
_define(("clamp", "clip"), ("input", ("min", None), ("max", None)), _clamp)
_define(("clamp_min", "clamp_max"), ("input", "min"), _same)
_define(("masked_fill",), ("input", "mask", "value"), _masked_fill)
for _name, _dtype in (("float", "float32"), ("half", "float16"), ("double", "float64"), ("bfloat16", "bfloat16"),
                      ("int", "int32"), ("long", "int64"), ("bool", "bool")):
    _define(_name, ("input",), _cast(_dtype))
_define(("to", "type"), ("input", ("*", None), ("dtype", None), ("non_blocking", False), ("copy", False),
                         ("device", None), ("memory_format", None)), _to)
_define(("sum", "mean", "nansum", "nanmean", "amax", "amin", "logsumexp", "prod"),
        ("input", ("dim", None), ("keepdim", _UNSET), ("dtype", None)), _reduction)
_define(("argmax", "argmin"), ("input", ("dim", None), ("keepdim", False)), _index_reduction)
_define(("all", "any"), ("input", ("dim", None), ("keepdim", False)), _bool_reduction)
_define(("var", "std"), ("input", ("dim", None), ("unbiased", None), ("keepdim", False), ("correction", None)),
        _statistic)
_define("norm", ("input", ("p", "fro"), ("dim", None), ("keepdim", False), ("dtype", None)), _norm)
_define(("max", "min", "median", "nanmedian"), ("input", ("dim", None), ("keepdim", False)), _values_and_indices)
_define(("cumsum", "cumprod", "logcumsumexp"), ("input", "dim", ("dtype", None)), _cumulative)
_define(("softmax", "log_softmax", "softmin"), ("input", ("dim", None), ("_stacklevel", 3), ("dtype", None)),
        _softmax)
_define(("view", "reshape"), ("input", ("*", None)), _view)
_define(("view_as", "reshape_as"), ("input", "other"), _view_as)
_define("flatten", ("input", ("start_dim", 0), ("end_dim", -1)), _flatten)
_define("unflatten", ("input", "dim", "sizes"), _unflatten)
_define(("squeeze", "squeeze_"), ("input", ("dim", None)), _squeeze)
_define(("unsqueeze", "unsqueeze_"), ("input", "dim"), _unsqueeze)
_define("permute", ("input", ("*", None)), _permute)
_define(("transpose", "swapaxes", "swapdims", "transpose_"), ("input", "dim0", "dim1"), _transpose)
_define(("t", "t_"), ("input",), _t)
_define("expand", ("input", ("*", None)), _expand)
_define("expand_as", ("input", "other"), _expand_as)
_define(("repeat", "tile"), ("input", ("*", None)), _repeat)
_define("narrow", ("input", "dim", "start", "length"), _narrow)
_define("select", ("input", "dim", "index"), _select)
_define("matmul", ("input", "other"), _matmul)
_define("mm", ("input", "mat2"), lambda b: _mm({"input": b["input"], "other": b["mat2"]}))
_define("bmm", ("input", "mat2"), lambda b: _bmm({"input": b["input"], "other": b["mat2"]}))
_define("addmm", ("input", "mat1", "mat2", ("beta", 1), ("alpha", 1)), _addmm)
_define("baddbmm", ("input", "batch1", "batch2", ("beta", 1), ("alpha", 1)), _baddbmm)
_define("linear", ("input", "weight", ("bias", None)), _linear)
_define(("cat", "concat", "concatenate"), ("tensors", ("dim", 0)), _cat)
_define("stack", ("tensors", ("dim", 0)), _stack)
for _dims_count in (1, 2, 3):
    _define(f"conv{_dims_count}d", ("input", "weight", ("bias", None), ("stride", 1), ("padding", 0),
                                    ("dilation", 1), ("groups", 1)), _conv(_dims_count))
    _define(f"conv_transpose{_dims_count}d", ("input", "weight", ("bias", None), ("stride", 1), ("padding", 0),
                                              ("output_padding", 0), ("groups", 1), ("dilation", 1)),
            _conv_transpose(_dims_count))
    _define(f"max_pool{_dims_count}d", ("input", "kernel_size", ("stride", None), ("padding", 0), ("dilation", 1),
                                        ("ceil_mode", False), ("return_indices", False)), _pool(_dims_count, True))
    _define(f"avg_pool{_dims_count}d", ("input", "kernel_size", ("stride", None), ("padding", 0),
                                        ("ceil_mode", False), ("count_include_pad", True),
                                        ("divisor_override", None)), _pool(_dims_count, False))
    _define(f"adaptive_avg_pool{_dims_count}d", ("input", "output_size"), _adaptive(_dims_count, False))
    _define(f"adaptive_max_pool{_dims_count}d", ("input", "output_size", ("return_indices", False)),
            _adaptive(_dims_count, True))
_define("pad", ("input", "pad", ("mode", "constant"), ("value", None)), _pad)
_define(("interpolate", "upsample"), ("input", ("size", None), ("scale_factor", None), ("mode", "nearest"),
                                      ("align_corners", None), ("recompute_scale_factor", None),
                                      ("antialias", False)), _interpolate)
_define("pixel_shuffle", ("input", "upscale_factor"), _pixel_shuffle)
_define("glu", ("input", ("dim", -1)), _glu)
# F.* and ATen order their arguments alike; ATen's trailing cudnn flag is accepted and ignored
_define("group_norm", ("input", "num_groups", ("weight", None), ("bias", None), ("eps", 1e-5),
                       ("cudnn_enabled", True)), _group_norm)
_define("layer_norm", ("input", "normalized_shape", ("weight", None), ("bias", None), ("eps", 1e-5),
                       ("cudnn_enable", True)), _layer_norm)


def known_op(name: str) -> bool:
    return name in _TABLE


def apply_op(name: str, args: list, kwargs: dict, rejected: Callable[[str], None] | None = None
             ) -> TensorType | tuple | None:
    """The result of torch's `name(*args, **kwargs)` (a method's receiver is the first argument);
    None when not known exactly. When torch would raise for arguments all known exactly, `rejected` is
    called with what torch checks, and the result is None too."""
    entry = _TABLE.get(name)
    if entry is None:
        return None
    spec, rule = entry
    bound: dict = {"args": []}
    rest: list = list(args)
    positional: set[str] = set()
    for param, default in spec:
        if param == "*":
            bound["args"], rest = rest, []
        elif param == "**":
            continue
        elif rest:
            bound[param] = rest.pop(0)
            positional.add(param)
        elif param in kwargs:
            bound[param] = kwargs[param]
        elif default is _REQUIRED:
            return None
        else:
            bound[param] = default
    names = {p for p, _ in spec}
    if rest or any(k in positional or (k not in names and "**" not in names and k != "inplace") for k in kwargs):
        return None  # too many arguments, an argument given twice or one torch does not take
    try:
        return rule(bound)
    except Rejected as error:
        if rejected is not None:
            rejected(error.reason)
        return None
    except (_NotKnown, ZeroDivisionError, OverflowError, ValueError, TypeError, IndexError):
        return None
