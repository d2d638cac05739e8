"""What the `__init__` interpreter's calls of the library do (`init_order.py` runs the rest of Python):
builtins and `math`, torch's factories and random functions, `torch.nn.init`, and the torch.nn layers with
their default init, in the order torch draws.
"""

from __future__ import annotations

import ast
import math

from cudalint.harness.init_values import (
    UNKNOWN, _Container, _Dotted, _Object, _Stop, _Tensor, _device, _dtype, _number_like, _plain, _size_args,
)
from cudalint.harness.torch_draws import (
    _CELL_GATES, _CONV, _CONV_ARGS, _CONV_T, _CONV_T_ARGS, _FACTORIES, _INIT_NO_DRAW, _LAYER_ARGS, _LIKE_FACTORIES,
    _NO_DRAW_MODULES, _PLAIN_RNN_ARGS, _RANDOM_FACTORIES, _RNN_ARGS, _RNN_GATES, _SEEDING, _fans, _gain,
)


class _TorchCalls:
    """What the interpreter's calls of the library do: Python's builtins and `math`, torch's factories and
    random functions, `torch.nn.init`, and the torch.nn layers with their default init, drawing in the order
    torch draws. `_Interpreter` (`init_order.py`) provides the rest: `record`, `eval`, `parameters`, ...
    """

    # ---------------------------------------------------------------------------------------- library

    def library(self, name: str, args: list, kwargs: dict, node: ast.Call) -> object:
        if name.startswith("builtins."):
            return self.builtin(name[9:], args, kwargs)
        if name.startswith("math."):
            function = getattr(math, name[5:], None)
            if function is None or not callable(function) or not all(_number_like(a) for a in args):
                return UNKNOWN
            try:
                return function(*args)
            except (TypeError, ValueError, OverflowError):
                return UNKNOWN
        if name.startswith(("numpy.", "np.")):
            short = name.split(".", 1)[1]
            if short.startswith("random"):
                raise _Stop("numpy random")
            if short in ("sqrt", "prod") and all(_number_like(a) for a in args):
                return math.sqrt(args[0]) if short == "sqrt" else math.prod(args)
            return UNKNOWN
        if name.startswith(("torch.nn.init.", "torch.nn.init")) and name.count(".") == 3:
            return self.init_function(name.rsplit(".", 1)[1], args, kwargs, node)
        if name in ("torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer"):
            value = args[0] if args else kwargs.get("data")
            if value is None:
                return _Tensor((0,), [])
            if not isinstance(value, _Tensor):
                raise _Stop("Parameter of an unknown value")
            return value
        if name in ("torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict",
                    "torch.nn.ParameterList", "torch.nn.ParameterDict"):
            items = args
            if name != "torch.nn.Sequential":
                if not args:
                    items = []
                elif isinstance(args[0], dict):
                    items = list(args[0].items())
                else:
                    items = self.iterate(args[0])
            elif len(args) == 1 and isinstance(args[0], dict):
                items = list(args[0].values())
            return _Container(list(items))
        if name.startswith("torch.nn.") and name.count(".") == 2:
            return self.layer(name[9:], args, kwargs, node)
        if name.startswith("torch.nn.functional.") or name.startswith("torch.nn.utils."):
            if name.rsplit(".", 1)[1] in ("dropout", "dropout2d", "dropout3d", "rrelu", "alpha_dropout",
                                          "feature_alpha_dropout", "gumbel_softmax"):
                raise _Stop(f"`{name}` may draw")
            return UNKNOWN
        if name.startswith("torch.utils.cpp_extension.") or name in ("torch.device", "torch.dtype"):
            return UNKNOWN
        if name.startswith("torch.") and name.count(".") == 1:
            return self.torch_function(name[6:], args, kwargs, node)
        if name.startswith(("torch.cuda.", "torch.random.")) and name.rsplit(".", 1)[1] in _SEEDING | {
                "manual_seed_all"}:
            raise _Stop(f"`{name}` reseeds")
        if name.startswith(("torch.backends.", "torch.cuda.", "torch._dynamo.", "torch.jit.",
                            "torch.autograd.")):
            return UNKNOWN
        if name in ("warnings.warn", "logging.info", "logging.warning", "os.environ.get", "os.getenv"):
            return UNKNOWN
        raise _Stop(f"call of `{name}`")

    def builtin(self, name: str, args: list, kwargs: dict) -> object:
        if name in ("print", "setattr", "isinstance", "hasattr", "getattr", "issubclass", "callable", "id",
                    "repr", "str", "format", "type"):
            if name == "setattr" and len(args) == 3 and isinstance(args[0], _Object) and isinstance(args[1], str):
                args[0].attrs[args[1]] = args[2]
                return None
            if name == "getattr" and len(args) >= 2 and isinstance(args[0], _Object) and isinstance(args[1], str):
                value = self.attribute(args[0], args[1])
                return value
            if name == "str" and args and _plain(args[0]):
                return str(args[0])
            if name in ("print",):
                return None
            if name == "isinstance" and len(args) == 2 and _plain(args[0]) and isinstance(args[1], (_Dotted, tuple)):
                types = args[1] if isinstance(args[1], tuple) else (args[1],)
                mapping = {"builtins.int": int, "builtins.float": float, "builtins.tuple": tuple,
                           "builtins.list": list, "builtins.bool": bool, "builtins.str": str}
                if all(isinstance(t, _Dotted) and t.name in mapping for t in types):
                    return isinstance(args[0], tuple(mapping[t.name] for t in types))
            raise _Stop(f"builtin {name}")
        if name == "range":
            if all(isinstance(a, int) and not isinstance(a, bool) for a in args) and 1 <= len(args) <= 3:
                return range(*args)
            raise _Stop("range of unknown bounds")
        if name in ("len",):
            value = args[0]
            if isinstance(value, _Container):
                return len(value.items)
            if isinstance(value, (list, tuple, str, dict, range)):
                return len(value)
            return UNKNOWN
        if name in ("int", "float", "bool", "abs", "round"):
            if args and _number_like(args[0]) or (name == "int" and args and isinstance(args[0], str)):
                try:
                    return {"int": int, "float": float, "bool": bool, "abs": abs, "round": round}[name](*args)
                except (TypeError, ValueError):
                    return UNKNOWN
            if not args and name in ("int", "float", "bool"):
                return {"int": 0, "float": 0.0, "bool": False}[name]
            return UNKNOWN
        if name in ("min", "max", "sum"):
            if len(args) == 1 and isinstance(args[0], range):  # from its ends: range(10**12) is never listed
                span = args[0]
                if not span:
                    return 0 if name == "sum" else UNKNOWN
                first, last = span[0], span[-1]
                return {"min": min(first, last), "max": max(first, last), "sum": len(span) * (first + last) // 2}[name]
            values = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
            if values and all(_number_like(v) for v in values):
                return {"min": min, "max": max, "sum": sum}[name](values)
            return UNKNOWN
        if name in ("tuple", "list"):
            if not args:
                return () if name == "tuple" else []
            items = self.iterate(args[0])
            return tuple(items) if name == "tuple" else list(items)
        if name in ("enumerate", "zip", "reversed", "sorted"):
            try:
                if name == "enumerate":
                    return list(enumerate(self.iterate(args[0]), *args[1:]))
                if name == "zip":
                    return list(zip(*[self.iterate(a) for a in args]))
                if name == "reversed":
                    return list(reversed(self.iterate(args[0])))
                values = self.iterate(args[0])
                if all(_plain(v) for v in values):
                    return sorted(values)
            except TypeError:
                pass
            raise _Stop(f"builtin {name}")
        if name == "dict":
            return dict(kwargs) if not args else UNKNOWN
        if name in ("divmod", "pow") and all(_number_like(a) for a in args):
            try:
                return divmod(*args) if name == "divmod" else pow(*args)
            except (TypeError, ValueError, ZeroDivisionError):
                return UNKNOWN
        raise _Stop(f"builtin {name}")

    def torch_function(self, name: str, args: list, kwargs: dict, node: ast.Call) -> object:
        if name in _SEEDING:
            raise _Stop(f"torch.{name} reseeds")
        if name in ("set_default_dtype", "set_default_device", "set_default_tensor_type", "use_deterministic_algorithms"):
            raise _Stop(f"torch.{name}")
        dtype = _dtype(kwargs.get("dtype", "float32"))
        device = _device(kwargs.get("device", "cpu"))
        if name in _RANDOM_FACTORIES:
            tensor = _Tensor(None, [], dtype, device)
            if name in ("randn", "rand"):
                shape = _size_args(args if "size" not in kwargs else [kwargs["size"]])
                params = (0.0, 1.0)
                self.record("normal" if name == "randn" else "uniform", shape, params, device, dtype, node, tensor)
            elif name in ("randn_like", "rand_like"):
                like = args[0] if args else kwargs.get("input")
                shape = like.shape if isinstance(like, _Tensor) else None
                if "device" not in kwargs:
                    device = None
                self.record("normal" if name == "randn_like" else "uniform", shape, (0.0, 1.0), device, dtype,
                            node, tensor)
            elif name == "randint":
                positional = [a for a in args if not isinstance(a, (tuple, list))]
                sizes = [a for a in args if isinstance(a, (tuple, list))] or [kwargs.get("size")]
                bounds = ([0] + positional)[-2:] if len(positional) == 1 else positional[:2]
                params = tuple(float(b) for b in bounds) if all(_number_like(b) for b in bounds) else None
                self.record("randint", _size_args(sizes), params, device,
                            dtype if "dtype" in kwargs else "int64", node, tensor)
            elif name == "randperm":
                n = args[0] if args else kwargs.get("n")
                self.record("randperm", (n,) if isinstance(n, int) else None, None, device,
                            dtype if "dtype" in kwargs else "int64", node, tensor)
            elif name == "normal":
                mean, std = (list(args) + [None, None])[:2]
                mean = kwargs.get("mean", mean)
                std = kwargs.get("std", std)
                size = kwargs.get("size", args[2] if len(args) > 2 else None)
                if not (_number_like(mean) and _number_like(std)) or size is None:
                    raise _Stop("torch.normal with tensor arguments")
                self.record("normal", _size_args([size]), (float(mean), float(std)), device, dtype, node, tensor)
            else:
                raise _Stop(f"torch.{name}")
            tensor.shape = self.draws[-1].shape
            return tensor
        if name in _FACTORIES:
            if name == "full":
                shape = _size_args(args[:1] if args else [kwargs.get("size")])
            elif name == "eye":
                n = args[0] if args else None
                m = args[1] if len(args) > 1 else n
                shape = (n, m) if isinstance(n, int) and isinstance(m, int) else None
            else:
                shape = _size_args(args if "size" not in kwargs else [kwargs["size"]])
            return _Tensor(shape, [], dtype, device)
        if name in _LIKE_FACTORIES:
            like = args[0] if args else None
            if not isinstance(like, _Tensor):
                return _Tensor(None, [], dtype, None)
            return _Tensor(like.shape, [], dtype if "dtype" in kwargs else like.dtype,
                           device if "device" in kwargs else like.device)
        if name in ("tensor", "as_tensor", "from_numpy", "arange", "linspace", "logspace", "zeros_like",
                    "stack", "cat", "ones_like"):
            for a in args:
                if isinstance(a, _Tensor):
                    a.transformed()
            return _Tensor(None, [], dtype)
        if name in ("float32", "float16", "float64", "bfloat16", "half", "float", "double", "long", "int",
                    "int32", "int64", "bool", "device", "Size", "finfo", "iinfo", "get_default_dtype",
                    "no_grad", "enable_grad", "inference_mode", "is_tensor", "is_grad_enabled"):
            return UNKNOWN
        # other torch functions compute from their arguments and draw nothing
        for a in args:
            if isinstance(a, _Tensor):
                a.transformed()
        return _Tensor(None, [], dtype)

    def init_function(self, name: str, args: list, kwargs: dict, node: ast.Call) -> object:
        tensor = args[0] if args else kwargs.get("tensor")
        if name in _INIT_NO_DRAW:
            if name == "calculate_gain":
                return _gain(args[0] if args else kwargs.get("nonlinearity"),
                             args[1] if len(args) > 1 else kwargs.get("param"))
            return tensor
        if name == "_calculate_fan_in_and_fan_out":
            return _fans(tensor.shape if isinstance(tensor, _Tensor) else None)
        if name == "_calculate_correct_fan":
            mode = args[1] if len(args) > 1 else kwargs.get("mode")
            fan_in, fan_out = _fans(tensor.shape if isinstance(tensor, _Tensor) else None)
            return fan_in if mode == "fan_in" else fan_out
        if not isinstance(tensor, _Tensor):
            raise _Stop(f"nn.init.{name} of an unknown tensor")

        def arg(i: int, key: str, default: object) -> object:
            return kwargs.get(key, args[i] if i < len(args) else default)

        dist, params = None, None
        try:
            if name in ("uniform_", "uniform"):
                dist, params = "uniform", (arg(1, "a", 0.0), arg(2, "b", 1.0))
            elif name in ("normal_", "normal"):
                dist, params = "normal", (arg(1, "mean", 0.0), arg(2, "std", 1.0))
            elif name in ("trunc_normal_",):
                dist, params = "trunc_normal", (arg(1, "mean", 0.0), arg(2, "std", 1.0), arg(3, "a", -2.0),
                                                arg(4, "b", 2.0))
            elif name in ("kaiming_uniform_", "kaiming_normal_", "kaiming_uniform", "kaiming_normal"):
                a, mode, nonlinearity = arg(1, "a", 0), arg(2, "mode", "fan_in"), arg(3, "nonlinearity", "leaky_relu")
                fan_in, fan_out = _fans(tensor.shape)
                if mode not in ("fan_in", "fan_out"):
                    raise _Stop("kaiming mode not known")
                fan = fan_in if mode == "fan_in" else fan_out
                gain = _gain(nonlinearity, a)
                std = gain / math.sqrt(fan) if fan > 0 else 0.0
                if name.startswith("kaiming_uniform"):
                    dist, params = "uniform", (-math.sqrt(3.0) * std, math.sqrt(3.0) * std)
                else:
                    dist, params = "normal", (0.0, std)
            elif name in ("xavier_uniform_", "xavier_normal_", "xavier_uniform", "xavier_normal"):
                gain = arg(1, "gain", 1.0)
                fan_in, fan_out = _fans(tensor.shape)
                if not _number_like(gain):
                    raise _Stop("xavier gain not known")
                std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
                if name.startswith("xavier_uniform"):
                    dist, params = "uniform", (-math.sqrt(3.0) * std, math.sqrt(3.0) * std)
                else:
                    dist, params = "normal", (0.0, std)
            elif name in ("orthogonal_", "orthogonal"):
                dist, params = "orthogonal", (arg(1, "gain", 1.0),)
            elif name in ("sparse_",):
                dist, params = "sparse", (arg(1, "sparsity", None), arg(2, "std", 0.01))
            else:
                raise _Stop(f"nn.init.{name}")
        except (TypeError, ZeroDivisionError, ValueError):
            raise _Stop(f"nn.init.{name} parameters") from None
        if params is not None and not all(_number_like(p) for p in params):
            params = None
        elif params is not None:
            params = tuple(float(p) for p in params)
        self.record(dist, tensor.shape, params, tensor.device, tensor.dtype, node, tensor)
        return tensor

    # ----------------------------------------------------------------------------------------- layers

    def layer(self, kind: str, args: list, kwargs: dict, node: ast.Call) -> _Object:
        layer = _Object(kind=kind)
        layer.attrs["_args"], layer.attrs["_kwargs"] = list(args), dict(kwargs)
        if kind in _NO_DRAW_MODULES:
            return layer
        names = _CONV_ARGS if kind in _CONV else _CONV_T_ARGS if kind in _CONV_T else \
            _PLAIN_RNN_ARGS if kind == "RNN" else _RNN_ARGS if kind in _RNN_GATES else _LAYER_ARGS.get(kind)
        if names is None:
            raise _Stop(f"nn.{kind} (its init is not known)")
        if len(args) > len(names) or any(k not in names for k in kwargs):
            raise _Stop(f"nn.{kind} arguments")
        bound = dict(zip(names, args))
        bound.update(kwargs)
        layer.attrs.update({k: v for k, v in bound.items() if not k.startswith("_")})
        device = _device(bound.get("device", "cpu"))
        dtype = _dtype(bound.get("dtype", "float32"))
        def need(key: str, default: object = None) -> object:
            value = bound.get(key, default)
            if value is UNKNOWN or isinstance(value, (_Tensor, _Object)):
                raise _Stop(f"nn.{kind}: `{key}` not known")
            return value

        def param(shape: tuple, dist: str, params: tuple | None, what: str, attr: str) -> None:
            tensor = _Tensor(shape, [], dtype, device)
            self.record(dist, shape, params, device, dtype, node, tensor, what)
            layer.params.append(tensor)
            layer.attrs[attr] = tensor

        def tensor_only(shape: tuple, attr: str) -> None:
            tensor = _Tensor(shape, [], dtype, device)
            layer.params.append(tensor)
            layer.attrs[attr] = tensor

        def ints(*values: object) -> bool:
            return all(isinstance(v, int) and not isinstance(v, bool) for v in values)

        if kind == "Linear" or kind == "Bilinear":
            bias = need("bias", True)
            if kind == "Linear":
                fan_in, out = need("in_features"), need("out_features")
                shape: tuple = (out, fan_in)
            else:
                in1, in2, out = need("in1_features"), need("in2_features"), need("out_features")
                if not ints(in1, in2):
                    raise _Stop("nn.Bilinear sizes")
                fan_in, shape = in1, (out, in1, in2)
            if not ints(fan_in, out):
                raise _Stop(f"nn.{kind} sizes not known")
            bound_value = 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0
            param(shape, "uniform", (-bound_value, bound_value), "the weight", "weight")
            if bias:
                param((out,), "uniform", (-bound_value, bound_value), "the bias", "bias")
            else:
                layer.attrs["bias"] = None
            layer.attrs["in_features"], layer.attrs["out_features"] = fan_in, out
            return layer
        if kind in _CONV or kind in _CONV_T:
            dims = _CONV.get(kind) or _CONV_T[kind]
            cin, cout, groups, bias = need("in_channels"), need("out_channels"), need("groups", 1), need("bias", True)
            kernel = need("kernel_size")
            kernel = tuple(kernel) if isinstance(kernel, (tuple, list)) else (kernel,) * dims
            if not ints(cin, cout, groups, *kernel) or len(kernel) != dims or groups <= 0:
                raise _Stop(f"nn.{kind} sizes not known")
            if kind in _CONV:
                shape = (cout, cin // groups) + kernel
            else:
                shape = (cin, cout // groups) + kernel
            receptive = math.prod(kernel)
            fan_in = shape[1] * receptive
            bound_value = 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0
            param(shape, "uniform", (-bound_value, bound_value), "the weight", "weight")
            if bias:
                param((cout,), "uniform", (-bound_value, bound_value), "the bias", "bias")
            else:
                layer.attrs["bias"] = None
            layer.attrs["kernel_size"] = kernel
            for key in ("stride", "padding", "dilation", "output_padding"):
                value = bound.get(key, 0 if "padding" in key else 1)
                if isinstance(value, int) and not isinstance(value, bool):
                    value = (value,) * dims
                layer.attrs[key] = value
            layer.attrs["groups"] = groups
            return layer
        if kind == "Embedding":
            num, dim = need("num_embeddings"), need("embedding_dim")
            if bound.get("_weight") is not None:
                raise _Stop("nn.Embedding with _weight")
            if not ints(num, dim):
                raise _Stop("nn.Embedding sizes not known")
            param((num, dim), "normal", (0.0, 1.0), "the weight", "weight")
            return layer
        if kind in _RNN_GATES or kind in _CELL_GATES:
            gates = _RNN_GATES.get(kind) or _CELL_GATES[kind]
            cell = kind in _CELL_GATES
            size_in, hidden, bias = need("input_size"), need("hidden_size"), need("bias", True)
            layers = 1 if cell else need("num_layers", 1)
            directions = 1 if cell or not need("bidirectional", False) else 2
            proj = 0 if cell else need("proj_size", 0)
            if not ints(size_in, hidden, layers, proj) or hidden <= 0 or not 0 < layers <= 4096:
                raise _Stop(f"nn.{kind} sizes not known")
            stdv = 1.0 / math.sqrt(hidden)
            real_hidden = proj if proj > 0 else hidden
            suffix_attrs = []
            for index in range(layers):
                for direction in range(directions):
                    width = size_in if index == 0 else real_hidden * directions
                    suffix = "" if cell else f"_l{index}" + ("_reverse" if direction else "")
                    shapes = [("weight_ih", (gates * hidden, width)), ("weight_hh", (gates * hidden, real_hidden))]
                    if bias:
                        shapes += [("bias_ih", (gates * hidden,)), ("bias_hh", (gates * hidden,))]
                    if proj > 0:
                        shapes.append(("weight_hr", (proj, hidden)))
                    suffix_attrs.extend((name + suffix, shape) for name, shape in shapes)
            for attr, shape in suffix_attrs:  # reset_parameters: uniform over self.parameters(), in order
                param(shape, "uniform", (-stdv, stdv), f"`{attr}`", attr)
            return layer
        if kind == "MultiheadAttention":
            embed, heads, bias = need("embed_dim"), need("num_heads"), need("bias", True)
            if need("add_bias_kv", False) or need("kdim") not in (None, embed) or need("vdim") not in (None, embed):
                raise _Stop("nn.MultiheadAttention with kdim/vdim or bias_kv")
            if not ints(embed, heads):
                raise _Stop("nn.MultiheadAttention sizes not known")
            tensor_only((3 * embed, embed), "in_proj_weight")
            b = 1 / math.sqrt(embed)
            out_proj = _Object(kind="Linear")
            tensor = _Tensor((embed, embed), [], dtype, device)
            self.record("uniform", (embed, embed), (-b, b), device, dtype, node, tensor,
                        "the out_proj weight")
            out_proj.attrs["weight"] = tensor
            out_proj.params.append(tensor)
            if bias:
                tensor = _Tensor((embed,), [], dtype, device)
                self.record("uniform", (embed,), (-b, b), device, dtype, node, tensor,
                            "the out_proj bias")
                out_proj.attrs["bias"] = tensor
                out_proj.params.append(tensor)
            layer.attrs["out_proj"] = out_proj
            x = math.sqrt(3.0) * math.sqrt(2.0 / (4 * embed))
            self.record("uniform", (3 * embed, embed), (-x, x), device, dtype, node, layer.params[0],
                        "the in_proj_weight (xavier_uniform_)")
            return layer
        raise _Stop(f"nn.{kind}")
