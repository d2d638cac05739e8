"""Generate a standalone `main()` driver for every launchable corpus `.cu` file.

Each driver `#include`s the corpus file unchanged (so compute-sanitizer reports the corpus file's own
lines when built with `-lineinfo`), allocates device buffers of exactly the element counts the launcher's
semantics need, fills inputs with random values, poisons outputs with a sentinel bit pattern, calls the
file's host launcher, and prints machine-readable `@@GT` lines:

    @@GT launch_error <code> <name>      cudaGetLastError() after the launcher returned
    @@GT sync_error <code> <name>        cudaDeviceSynchronize() after the launch
    @@GT unwritten <param> <count> <total> <first>   output elements still holding the sentinel
    @@GT nondet <param> <count> <total> <maxrel>     outputs of two identical runs differ (plain mode)
    @@GT dirty <param> <count> <total> <maxrel> <stable>   a third run, after a kernel filled every SM's
                                         shared memory with a NaN pattern, differs from the first
                                         (plain mode; stable = 1 when the first two runs agreed bit for bit)
    @@GT twin <param> <count> <total> <maxrel>       the file's clean twin (TWINS), run on the same inputs,
                                         gives other outputs than the first run (plain mode)
    @@GT done

Usage (here, CPU-only; cudalint's front end reads the launcher signatures):
    python gpu/driver_gen.py [--out gpu/build] [--check]      # --check: nvcc -c every driver here

The sizing rules are in gpu/README.md ("How the drivers size buffers"); every file's chosen sizes,
the rule that chose each, and the files the generic driver cannot launch are written to
`<out>/drivers.json`, which gpu/ground_truth.py reads on the device.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from cudalint.frontend import lower_unit  # noqa: E402
from cudalint.model import ir  # noqa: E402
from cudalint.sources import load_document  # noqa: E402

CORPUS = os.path.join(ROOT, "corpus")

# ------------------------------------------------------------------ problem sizes (not block multiples)
INT_VALUES = {
    # 1-D lengths
    "n": 1000, "size": 1000, "num_elements": 1000, "L": 1000,
    # rows x columns (row-wise kernels): rows > every block size used for row-per-thread kernels,
    # and not a multiple of any of them
    "rows": 130, "num_rows": 130, "batch_size": 130,
    "cols": 1000, "hidden": 1000, "normalized_size": 1000, "features": 1000, "D": 1000,
    "classes": 1000, "row_len": 100,
    # matrices
    "M": 70, "N": 90, "K": 50,
    # 2-D images / transposes
    "width": 100, "height": 70, "H": 37, "W": 45, "B": 3,
    # attention
    "BH": 1, "batch_heads": 2, "S": 200, "seq_len": 200, "seq": 100, "ctx_len": 1000,
    # misc
    "num_tokens": 100, "vocab": 500, "padding_idx": 0, "num_src": 300, "num_out": 50,
    "C_in": 3, "C_out": 4, "KH": 3, "KW": 3, "stride": 1, "pad": 1, "k": 3, "s": 2, "p": 1,
    "bias_len": 100,
    # CSR graphs: a BFS step from an empty frontier (see CSR_DEGREES)
    "nodes": 1000, "num_nodes": 1000, "depth": 0,
}
FLOAT_VALUES = {
    "eps": "1e-5f", "negative_slope": "0.01f", "scale": "2.0f", "shift": "0.5f", "alpha": "1.5f",
    "beta": "0.5f", "threshold": "0.0f", "lo": "-1.0f", "hi": "1.0f",
}
# names of int params in a given family that take another value than INT_VALUES'
FAMILY_INTS = {
    "wmma": {"M": 80, "N": 96, "K": 48},       # whole-tile wmma kernels need multiples of 16
    "rows": {"N": 130, "C": 40, "batch": 130, "dim": 1000},
    "conv": {"N": 2, "C": 3, "K": 5},
    "bmm": {"batch": 3},
    "attention": {"dim": 64},
    "embedding": {"dim": 100},
    "width1d": {"width": 1000},
    "softplus": {"beta": "1.0f", "threshold": "20.0f"},
}

SCALAR_NAMES = {"result", "total", "mean", "count", "loss", "norm_sq", "max_out", "bias_sum",
                "grand_total", "changed"}
SCRATCH_NAMES = {"partials", "partial", "block_sums", "block_max", "block_out", "part_max", "part_sum",
                 "part_acc"}
FEATURE_NAMES = {"gamma", "beta", "weight", "bias", "w", "b"}
ROW_NAMES = ["rows", "num_rows", "batch_size", "batch", "N"]
COL_NAMES = ["cols", "dim", "hidden", "normalized_size", "features", "row_len", "classes", "D", "C"]
SCRATCH_COUNT = 65536  # generous on purpose: scratch buffers are not what the corpus labels

# CSR graphs (`nindex[v] .. nindex[v + 1]` indexes `nlist`): vertex v has v % CSR_DEGREES neighbours,
# so rows of every length from 0 to CSR_DEGREES - 1 occur and the adjacency array holds exactly the
# sum of them (`csr_nnz`): a read one past a row's end leaves the array at the last vertex. Per-vertex state
# starts at -1 (unvisited) for every vertex: no frontier stops a row scan early, so every row is read
# to its end.
CSR_DEGREES = 5
CSR_OFFSETS = {"nindex", "row_ptr", "indptr", "row_offsets", "offsets"}
CSR_ADJACENCY = {"nlist", "col_idx", "col_ind", "indices", "adj"}
CSR_VERTEX_STATE = {"level", "dist", "visited", "parent"}
CSR_VERTICES = ["nodes", "num_nodes", "rows", "n"]

# Files whose buffers no name rule sizes right: an explicit element count per pointer, each a C
# expression over the launcher's int params and the file's macros. Each entry says why.
OVERRIDES: dict[str, dict] = {
    "cu/elementwise/smooth3_inplace_neighbor_race.cu": {
        "why": "x is smoothed in place: it starts with data and is compared between runs",
        "sizes": {"x": "n"}, "init": {"x": "random"}},
    "cu/softmax/row_max_warp_partials_guarded.cu": {
        "why": "a row reduction: x [rows, cols], one maximum per row in out [rows]",
        "sizes": {"x": "rows*cols", "out": "rows"}},
    "cu/softmax/softmax_grid_y_rows.cu": {
        "why": "no size params; the launcher uses the file's BATCH, SEQ_LEN, VOCAB macros",
        "sizes": {"logits": "BATCH*SEQ_LEN*VOCAB", "probs": "BATCH*SEQ_LEN*VOCAB"}},
    "cu/conv/conv2d_grid_z_batch_channels.cu": {
        "why": "no size params; the launcher uses the file's fixed shape macros",
        "sizes": {"x": "BATCH*C_IN*H*W", "w": "C_OUT*C_IN*KSZ*KSZ", "y": "BATCH*C_OUT*H_OUT*W_OUT"}},
    "cu/conv/conv2d_flat_index_reused.cu": {
        "why": "NCHW valid conv: input [batch,in_channels,height,width], weight [out_channels,in_channels,k,k]",
        "ints": {"batch": 2, "in_channels": 3, "height": 37, "width": 45, "out_channels": 5, "kernel_size": 3},
        "sizes": {"input": "batch*in_channels*height*width",
                  "weight": "out_channels*in_channels*kernel_size*kernel_size",
                  "output": "batch*out_channels*(height-kernel_size+1)*(width-kernel_size+1)"}},
    "cu/conv/conv2d_decompose_copy.cu": {
        "why": "the same conv as conv2d_flat_index_reused.cu, decomposing a copy of the index",
        "ints": {"batch": 2, "in_channels": 3, "height": 37, "width": 45, "out_channels": 5, "kernel_size": 3},
        "sizes": {"input": "batch*in_channels*height*width",
                  "weight": "out_channels*in_channels*kernel_size*kernel_size",
                  "output": "batch*out_channels*(height-kernel_size+1)*(width-kernel_size+1)"}},
    "cu/conv/conv1d_direct.cu": {
        "why": "NCL conv: in [N,C_in,L], weight [C_out,C_in,K], out [N,C_out,L-K+1]",
        "sizes": {"in": "N*C_in*L", "weight": "C_out*C_in*K", "bias": "C_out", "out": "N*C_out*(L-K+1)"}},
    "cu/conv/conv1d_halo_no_sync.cu": {
        "why": "1-D stencil with a MASK_WIDTH-tap mask",
        "ints": {"width": 1000},
        "sizes": {"input": "width", "mask": "MASK_WIDTH", "output": "width"}},
    "cu/conv/conv1d_valid_off_by_one_floor_grid.cu": {
        "why": "valid 1-D conv: x [n], w [K], y [n-K+1]",
        "sizes": {"x": "n", "w": "K", "y": "n-K+1"}},
    "cu/conv/conv2d_direct_nchw.cu": {
        "why": "NCHW conv with stride/pad",
        "sizes": {"input": "N*C_in*H*W", "weight": "C_out*C_in*KH*KW", "bias": "C_out",
                  "output": "N*C_out*((H+2*pad-KH)/stride+1)*((W+2*pad-KW)/stride+1)"}},
    "cu/conv/conv2d_guard_x_only.cu": {
        "why": "single-channel valid conv",
        "sizes": {"input": "H*W", "kernel": "KH*KW", "output": "(H-KH+1)*(W-KW+1)"}},
    "cu/conv/conv2d_shared_tile.cu": {
        "why": "single-channel same conv; the filter is a host array copied to __constant__",
        "sizes": {"img": "H*W", "out": "H*W"}},
    "cu/conv/conv1d_halo_undersized.cu": {
        "why": "1-D stencil; the filter is a host array copied to __constant__",
        "sizes": {"in": "n", "out": "n"}},
    "cu/conv/conv1d_shared_halo.cu": {
        "why": "1-D stencil; the filter is a host array copied to __constant__",
        "sizes": {"in": "n", "out": "n"}},
    "cu/conv/depthwise_conv2d.cu": {
        "why": "depthwise NCHW conv, weight [C,1,K,K], 'same'-style output with pad",
        "ints": {"K": 3},
        "sizes": {"x": "N*C*H*W", "w": "C*K*K", "y": "N*C*(H+2*pad-K+1)*(W+2*pad-K+1)"}},
    "cu/conv/maxpool2d.cu": {
        "why": "NCHW max pool",
        "ints": {"C": 3},
        "sizes": {"in": "N*C*H*W", "out": "N*C*((H+2*p-k)/s+1)*((W+2*p-k)/s+1)"}},
    "cu/attention/attention_causal_tile_loop_barrier.cu": {
        "why": "[BH, seq_len, HEAD_DIM] tensors",
        "sizes": {x: "batch_heads*seq_len*HEAD_DIM" for x in ("Q", "K", "V", "O")}},
    "cu/attention/attention_key_per_thread_2048.cu": {
        "why": "Q,K [BH,SEQ_LEN,HEAD_DIM]; P [BH,SEQ_LEN,SEQ_LEN]",
        "sizes": {"Q": "BH*SEQ_LEN*HEAD_DIM", "K": "BH*SEQ_LEN*HEAD_DIM", "P": "BH*SEQ_LEN*SEQ_LEN"}},
    "cu/attention/attention_kv_cached_dyn_smem.cu": {
        "why": "[BH, SEQ, HDIM] tensors",
        "sizes": {x: "BH*SEQ*HDIM" for x in ("Q", "K", "V", "O")}},
    "cu/attention/attention_kv_cached_no_attr.cu": {
        "why": "[BH, SEQ_LEN, HEAD_DIM] tensors",
        "sizes": {x: "BH*SEQ_LEN*HEAD_DIM" for x in ("Q", "K", "V", "O")}},
    "cu/attention/attention_query_per_thread_unguarded.cu": {
        "why": "[BH, S, HEAD_DIM] tensors",
        "sizes": {x: "BH*S*HEAD_DIM" for x in ("Q", "K", "V", "O")}},
    "cu/attention/attention_row_softmax_av.cu": {
        "why": "[BH, SEQ_LEN, HEAD_DIM] tensors",
        "sizes": {x: "BH*SEQ_LEN*HEAD_DIM" for x in ("Q", "K", "V", "O")}},
    "cu/attention/attention_scores_max_no_sync.cu": {
        "why": "[BH, SEQ_LEN, HEAD_DIM] tensors",
        "sizes": {x: "BH*SEQ_LEN*HEAD_DIM" for x in ("Q", "K", "V", "O")}},
    "cu/attention/causal_attention_scores.cu": {
        "why": "Q,K [BH,seq,dim]; S [BH,seq,seq]",
        "sizes": {"Q": "BH*seq*dim", "K": "BH*seq*dim", "S": "BH*seq*seq"}},
    "cu/attention/decode_attention_single_query.cu": {
        "why": "one query per head: q,out [BH,HEAD_DIM]; caches [BH,ctx_len,HEAD_DIM]",
        "sizes": {"q": "BH*HEAD_DIM", "out": "BH*HEAD_DIM", "k_cache": "BH*ctx_len*HEAD_DIM",
                  "v_cache": "BH*ctx_len*HEAD_DIM"}},
    "cu/attention/flash_attention_tiled.cu": {
        "why": "[BH, S, D] tensors",
        "sizes": {x: "BH*S*D" for x in ("Q", "K", "V", "O")}},
    "cu/attention/split_kv_decode_grid_sync.cu": {
        "why": "single head decode: q,out [HEAD_DIM]; k,v [ctx_len,HEAD_DIM]; partials per split",
        "sizes": {"q": "HEAD_DIM", "out": "HEAD_DIM", "k": "ctx_len*HEAD_DIM", "v": "ctx_len*HEAD_DIM",
                  "part_max": "NUM_SPLITS", "part_sum": "NUM_SPLITS", "part_acc": "NUM_SPLITS*HEAD_DIM"}},
    "cu/misc/argmax_row.cu": {
        "why": "one index per row",
        "sizes": {"x": "rows*cols", "out": "rows"}},
    "cu/misc/topk_small_per_row.cu": {
        "why": "K (macro) values and indices per row",
        "sizes": {"logits": "rows*cols", "top_vals": "rows*K", "top_idx": "rows*K"}},
    "cu/misc/embedding_lookup.cu": {
        "why": "ids [num_tokens] in [0,vocab); weight [vocab,dim]; out [num_tokens,dim]",
        "sizes": {"ids": "num_tokens", "weight": "vocab*dim", "out": "num_tokens*dim"},
        "family": "embedding"},
    "cu/misc/histogram_grid_sync_plain_launch.cu": {
        "why": "NUM_BINS-bin histogram and pmf",
        "sizes": {"x": "n", "pmf": "NUM_BINS"}},
    "cu/misc/scatter_add_atomic.cu": {
        "why": "src [num_src,dim], index [num_src] in [0,num_out), out [num_out,dim]",
        "ints": {"dim": 16},
        "sizes": {"src": "num_src*dim", "index": "num_src", "out": "num_out*dim"}},
    "cu/misc/cross_entropy_loss.cu": {
        "why": "logits [batch,classes], target [batch] in [0,classes)",
        "sizes": {"logits": "batch*classes", "target": "batch"}},
    "cu/reduction/sum_stride_from_blockdim.cu": {
        "why": "one sum per row",
        "sizes": {"mat": "rows*cols", "row_sums": "rows"}},
    "cu/scan/scan_rows_grand_total_race.cu": {
        "why": "documented precondition cols <= BLOCK_SIZE (256)",
        "ints": {"cols": 200}},
    "cu/scan/scan_multiblock.cu": {
        "why": "block_sums holds one value per block, (n+255)/256",
        "sizes": {"block_sums": "(n+BLOCK_SIZE-1)/BLOCK_SIZE"}},
    "cu/scan/scan_blelloch.cu": {
        "why": "block_sums holds one value per block of ELEMS",
        "sizes": {"block_sums": "(n+ELEMS-1)/ELEMS"}},
    "cu/layernorm/rmsnorm_row_per_thread_floor_grid.cu": {
        "why": "row-per-thread: a short hidden keeps the per-thread loop cheap",
        "ints": {"hidden": 64}},
    "cu/softmax/softmax_row_per_thread_unguarded.cu": {
        "why": "row-per-thread; num_rows under one block of 128 so the unguarded rows overshoot",
        "ints": {"num_rows": 100}},
    "cu/layernorm/layernorm_cached_row_dyn_smem.cu": {
        "why": "rows of the fixed HIDDEN=16384: few rows keep racecheck's cost down", "ints": {"rows": 20}},
    "cu/layernorm/layernorm_cached_row_no_attr.cu": {
        "why": "rows of the fixed HIDDEN=16384: few rows keep racecheck's cost down", "ints": {"rows": 20}},
    "cu/misc/scatter_unguarded.cu": {
        "why": "index is a permutation of [0,n) so every output is written once by a correct kernel",
        "init": {"index": "perm"}},
    "cu/elementwise/softplus_smem_own_slot.cu": {"why": "softplus beta/threshold", "family_ints": "softplus"},
}


# Labelled files whose bug computes wrong values that no sanitizer or run-to-run comparison sees, and
# the clean corpus file that computes the same thing with the same launcher signature (the corpus's
# near-miss twin): in plain mode the driver also runs the twin on the same inputs and compares outputs.
TWINS: dict[str, dict] = {
    "cu/reduction/max_tree_partials_in_registers.cu": {
        "twin": "cu/reduction/max_tree_partials_stored.cu",
        "why": "the tree folds partials into registers without storing them: the row max misses most of them, "
               "the same way in every run"},
    "cu/conv/conv2d_flat_index_reused.cu": {
        "twin": "cu/conv/conv2d_decompose_copy.cu",
        "why": "the store at the index divided in place writes one output per (n, oc) group, with a value "
               "that may land the same way in both runs"},
}


def c_eval(expr: str, env: dict[str, int]) -> int:
    """Evaluate a small C integer expression (names, + - * / %, parentheses, sizeof)."""
    expr = re.sub(r"sizeof\s*\(\s*(unsigned\s+int|unsigned\s+char|long\s+long|float|int|half|__half|double)\s*\)",
                  lambda m: str(TYPE_SIZES[" ".join(m.group(1).split())]), expr)
    expr = re.sub(r"\(\s*(?:size_t|int|long long|long)\s*\)", "", expr)
    py = re.sub(r"(?<![/])/(?![/])", "//", expr)
    py = re.sub(r"\b(\d+)[uUlLfF]+\b", r"\1", py)
    names = set(re.findall(r"[A-Za-z_]\w*", py))
    missing = [n for n in names if n not in env]
    if missing:
        raise KeyError(f"unknown name(s) {missing} in '{expr}'")
    return int(eval(py, {"__builtins__": {}}, dict(env)))  # noqa: S307 - our own expressions


def csr_nnz(vertices: int) -> int:
    """The adjacency length of the drivers' CSR graphs: vertex v has v % CSR_DEGREES neighbours."""
    return sum(v % CSR_DEGREES for v in range(vertices))


TYPE_SIZES = {"float": 4, "int": 4, "unsigned int": 4, "unsigned char": 1, "long long": 8,
              "half": 2, "__half": 2, "double": 8}


def file_macros(text: str) -> dict[str, int]:
    raw: dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"\s*#define\s+([A-Za-z_]\w*)\s+(.+)", line)
        if m:
            body = re.sub(r"//.*", "", m.group(2)).strip()
            raw[m.group(1)] = body
    values: dict[str, int] = {}
    for _ in range(5):
        for name, body in raw.items():
            if name in values:
                continue
            try:
                values[name] = c_eval(body, values)
            except Exception:
                pass
    return values


# ----------------------------------------------------------------------------------------- the model
@dataclass
class Buffer:
    name: str
    ctype: str  # element type: float, __half, int, long long, unsigned int, unsigned char
    const: bool
    count_expr: str = ""
    count: int = 0
    rule: str = ""
    host: bool = False  # a host array (source of cudaMemcpyToSymbol)
    init: str = "random"  # random | randint:<lo>:<hi> | bytes | sentinel | zero
    check_unwritten: bool = False
    compare: bool = False  # compared between two runs in plain mode


@dataclass
class Scalar:
    name: str
    ctype: str
    value: str


@dataclass
class DriverSpec:
    path: str  # relative to corpus/
    launcher: str
    kernels: list[str]
    args: list[dict] = field(default_factory=list)  # in launcher order: {"kind": "buffer"|"scalar", ...}
    ints: dict[str, int] = field(default_factory=dict)
    sizing: str = "heuristic"
    why: str = ""
    notes: list[str] = field(default_factory=list)
    twin: str = ""  # a clean corpus file (relative to corpus/) run on the same inputs for reference


class NotLaunchable(Exception):
    pass


def element_type(t: str) -> tuple[str, bool]:
    const = t.strip().startswith("const ")
    base = t.replace("const", " ").replace("__restrict__", " ").replace("__restrict", " ").replace("*", " ")
    base = " ".join(base.split())
    if base == "half":
        base = "__half"
    return base, const


def lower_file(path: str):
    text = open(path).read()
    doc = load_document(path, text)
    return text, lower_unit(doc.units[0], os.path.dirname(path)).functions


def _host_calls(fn: ir.Function):
    for node in fn.body.walk() if fn.body else []:
        if isinstance(node, ir.Call):
            yield node


def _launched_kernels(fn: ir.Function, kernels: dict[str, ir.Function]) -> list[tuple[str, list]]:
    """(kernel name, argument exprs) for each launch in the host function, in source order."""
    out = []
    for node in fn.body.walk() if fn.body else []:
        if isinstance(node, ir.Launch) and node.kernel in kernels:
            out.append((node.kernel, node.args))
        elif isinstance(node, ir.Call) and node.callee in ("cudaLaunchCooperativeKernel", "cudaLaunchKernel"):
            m = re.search(r"\b(\w+_kernel|\w+)\b", node.args[0].text.replace("(void*)", "") if node.args else "")
            if m and m.group(1) in kernels:
                out.append((m.group(1), None))
    return out


def _atomic_targets(kernel_text: str) -> set[str]:
    names = set(re.findall(r"atomic\w+\s*\(\s*&?\s*\(?\s*([A-Za-z_]\w*)", kernel_text))
    return names


def _family(ints: set[str], text: str, category: str, relpath: str, pointers: list[str]) -> str:
    if "family" in OVERRIDES.get(relpath, {}):
        return OVERRIDES[relpath]["family"]
    if CSR_OFFSETS & set(pointers):
        return "csr"
    if {"M", "N", "K"} <= ints:
        if "wmma::" in text:
            return "wmma"
        return "bmm" if "batch" in ints else "matmul"
    if category == "conv":
        return "conv"
    if category == "attention":
        return "attention"
    if any(r in ints for r in ("rows", "num_rows", "batch_size", "batch")) or ("N" in ints and ("D" in ints or "C" in ints)):
        return "rows"
    if {"width", "height"} <= ints or {"H", "W"} <= ints or {"M", "N"} <= ints:
        return "2d"
    if "width" in ints:
        return "width1d"
    return "1d"


def _heuristic_count(b: Buffer, ints: dict[str, int], macros: dict[str, int], family: str,
                     ptr_order: list[str], int_names: list[str]) -> tuple[str, str]:
    """(count expression, rule) from the parameter's name, the int params and the family."""
    name = b.name
    if f"{name}_len" in ints:
        return f"{name}_len", "pointer X sized by int param X_len"
    if family in ("matmul", "bmm", "wmma"):
        pos = ptr_order.index(name)
        inputs = [p for p in ptr_order if p not in ("bias",)]
        batch = "batch*" if family == "bmm" else ""
        if name == "bias":
            return "N", "matmul bias: one per output column (N)"
        if inputs.index(name) == 0:
            return f"{batch}M*K", "matmul: first matrix M*K"
        if inputs.index(name) == 1:
            return f"{batch}K*N", "matmul: second matrix K*N (same count for a transposed N*K)"
        if inputs.index(name) == len(inputs) - 1 and not b.const:
            return f"{batch}M*N", "matmul: output M*N"
        raise NotLaunchable(f"matmul pointer '{name}' at position {pos} has no rule")
    if family == "rows":
        rows = next((r for r in ROW_NAMES if r in ints), None)
        cols = next((c for c in COL_NAMES if c in ints and c != rows), None)
        if cols is None and "HIDDEN" in macros:
            cols = "HIDDEN"
        if rows is None or cols is None:
            raise NotLaunchable(f"row-wise signature without both a row and a column size ({int_names})")
        if name in FEATURE_NAMES or name in ("ch_sum", "ch_sqsum"):
            return cols, f"per-feature vector: {cols}"
        return f"{rows}*{cols}", f"row-wise tensor: {rows}*{cols}"
    if family == "2d":
        if {"width", "height"} <= set(ints):
            dims = "width*height"
        elif {"H", "W"} <= set(ints):
            dims = "H*W"
        else:
            dims = "M*N"
        if "B" in ints:
            dims = "B*" + dims
        return dims, f"2-D tensor: {dims}"
    if family == "csr":
        vertices = next(v for v in CSR_VERTICES if v in ints)
        if name in CSR_OFFSETS:
            return f"{vertices}+1", f"CSR row offsets: {vertices}+1"
        if name in CSR_ADJACENCY:
            return "csr_nnz", f"CSR adjacency: the offsets' last value, sum of v % {CSR_DEGREES} over the vertices"
        return vertices, f"per-vertex array: {vertices}"
    if family in ("1d", "width1d"):
        length = next((x for x in ("n", "size", "num_elements", "width") if x in ints), None)
        if length is None:
            raise NotLaunchable(f"no length parameter among {int_names}")
        return length, f"1-D tensor: {length}"
    raise NotLaunchable(f"family '{family}' needs an explicit size table (see OVERRIDES)")


def _arguments(spec: DriverSpec) -> list[tuple]:
    """What a launcher is called with: each argument's name, type, and its value or element count and contents."""
    return [(a["name"], a["ctype"], a.get("value"), a.get("count"), a.get("init")) for a in spec.args]


def build_spec(relpath: str) -> DriverSpec:
    path = os.path.join(CORPUS, relpath)
    text, functions = lower_file(path)
    category = relpath.split("/")[1]
    kernels = {f.name: f for f in functions if f.space == "global"}
    hosts = [f for f in functions if f.space == "host" and f.body is not None]
    launchers = [(f, _launched_kernels(f, kernels)) for f in hosts]
    launchers = [(f, ks) for f, ks in launchers if ks]
    if not launchers:
        raise NotLaunchable("no host function launches a kernel")
    if len(launchers) > 1:
        raise NotLaunchable(f"{len(launchers)} launcher functions; the generic driver calls one")
    fn, launches = launchers[0]
    if fn.templated:
        raise NotLaunchable("templated launcher")
    override = OVERRIDES.get(relpath, {})
    macros = file_macros(text)
    lines = text.splitlines()
    fn_text = "\n".join(lines[fn.span.line - 1: fn.span.end_line])

    int_params = [p for p in fn.params if element_type(p.type)[0] in ("int", "long long", "size_t")
                  and "*" not in p.type]
    int_names = [p.name for p in int_params]
    pointer_params = [p for p in fn.params if "*" in p.type]
    ptr_order = [p.name for p in pointer_params]
    family = _family(set(int_names), text, category, relpath, ptr_order)
    ints: dict[str, int] = {}
    for name in int_names:
        value = FAMILY_INTS.get(family, {}).get(name, INT_VALUES.get(name))
        value = override.get("ints", {}).get(name, value)
        if value is None:
            raise NotLaunchable(f"no value rule for int parameter '{name}'")
        ints[name] = value
    env = {**macros, **ints}
    if family == "csr":
        vertices = next((v for v in CSR_VERTICES if v in ints), None)
        if vertices is None:
            raise NotLaunchable(f"CSR signature without a vertex count ({int_names})")
        env["csr_nnz"] = csr_nnz(ints[vertices])

    # kernel param names each launcher pointer is bound to (for atomics)
    bound: dict[str, set[str]] = {}
    for kname, args in launches:
        kparams = kernels[kname].params
        if args is None:  # cudaLaunchCooperativeKernel(args[]): same order, same names
            for p in kparams:
                bound.setdefault(p.name, set()).add(p.name)
            continue
        for arg, kp in zip(args, kparams):
            if isinstance(arg, ir.Name):
                bound.setdefault(arg.name, set()).add(kp.name)
    atomic_names: set[str] = set()
    for kname, _ in launches:
        k = kernels[kname]
        atomic_names |= _atomic_targets("\n".join(lines[k.span.line - 1: k.span.end_line]))

    # cudaMemset(name, 0, bytes) in the launcher: exact size, zeroed by the launcher
    memset: dict[str, str] = {}
    host_ptrs: set[str] = set()
    for call in _host_calls(fn):
        if call.callee == "cudaMemset" and len(call.args) == 3 and isinstance(call.args[0], ir.Name):
            # the IR's text of a macro-built argument can be empty: read the launcher's source
            m = re.search(r"cudaMemset\(\s*" + re.escape(call.args[0].name) + r"\s*,\s*[^,]+,\s*([^;]+)\)\s*;", fn_text)
            if not m:
                raise NotLaunchable(f"cannot read the size of cudaMemset({call.args[0].name}, ...)")
            memset[call.args[0].name] = m.group(1).strip()
        if call.callee == "cudaMemcpyToSymbol" and len(call.args) >= 2 and isinstance(call.args[1], ir.Name):
            host_ptrs.add(call.args[1].name)

    spec = DriverSpec(path=relpath, launcher=fn.name, kernels=[k for k, _ in launches], ints=ints,
                      twin=TWINS.get(relpath, {}).get("twin", ""))
    if override:
        spec.sizing = "override" if "sizes" in override else "heuristic+ints"
        spec.why = override.get("why", "")
    float_values = dict(FLOAT_VALUES)
    if override.get("family_ints"):
        float_values.update({k: v for k, v in FAMILY_INTS[override["family_ints"]].items() if isinstance(v, str)})

    for p in fn.params:
        if "*" not in p.type:
            ctype, _ = element_type(p.type)
            if p.name in ints:
                spec.args.append({"kind": "scalar", **asdict(Scalar(p.name, "int", str(ints[p.name])))})
            elif ctype in ("float", "double"):
                if p.name not in float_values:
                    raise NotLaunchable(f"no value rule for float parameter '{p.name}'")
                spec.args.append({"kind": "scalar", **asdict(Scalar(p.name, ctype, float_values[p.name]))})
            else:
                raise NotLaunchable(f"parameter '{p.name}' of type '{p.type}' has no rule")
            continue
        ctype, const = element_type(p.type)
        if ctype not in TYPE_SIZES:
            raise NotLaunchable(f"pointer '{p.name}' to '{ctype}' has no rule")
        b = Buffer(name=p.name, ctype=ctype, const=const)
        if p.name in host_ptrs:
            b.host = True
            b.count_expr, b.rule = "4096", "host array copied to __constant__ by the launcher"
        elif p.name in override.get("sizes", {}):
            b.count_expr, b.rule = override["sizes"][p.name], "override: " + override.get("why", "")
        elif p.name in memset:
            b.count_expr = f"({memset[p.name]})/{TYPE_SIZES[ctype]}"
            b.rule = f"launcher zeroes it: cudaMemset(.., {memset[p.name]})"
        elif p.name in SCALAR_NAMES:
            b.count_expr, b.rule = "1", "scalar result by name"
        elif p.name in SCRATCH_NAMES:
            b.count_expr, b.rule = str(SCRATCH_COUNT), "per-block scratch by name: generous, unchecked"
        elif category == "reduction" and not const:
            b.count_expr, b.rule = str(SCRATCH_COUNT), "reduction output (per block or scalar): generous, unchecked"
        else:
            b.count_expr, b.rule = _heuristic_count(b, ints, macros, family, ptr_order, int_names)
        b.count = c_eval(b.count_expr, env) if not b.host else 4096
        if b.count <= 0:
            raise NotLaunchable(f"buffer '{p.name}' sized {b.count_expr} = {b.count}")
        targets = bound.get(p.name, {p.name})
        atomic = bool(targets & atomic_names)
        # initial contents
        if p.name in override.get("init", {}):
            # a buffer updated in place starts with data, and its result is compared between runs
            b.init, b.compare = override["init"][p.name], not const
        elif family == "csr" and p.name in CSR_OFFSETS:
            b.init = "csr_offsets"
        elif family == "csr" and p.name in CSR_ADJACENCY:
            b.init = f"randint:0:{ints[next(v for v in CSR_VERTICES if v in ints)]}"  # vertex ids
        elif family == "csr" and not const:
            # per-vertex state starts unvisited, flags cleared: the kernel writes them only where something
            # changes, so neither is checked for coverage
            b.init, b.compare = ("fill:-1" if p.name in CSR_VERTEX_STATE else "zero"), True
        elif const or b.host:
            if ctype == "unsigned char":
                b.init = "bytes"
            elif ctype in ("int", "long long", "unsigned int"):
                bound_expr = {"ids": "vocab", "target": "classes", "index": "num_out" if "num_out" in ints else "n"}.get(p.name)
                b.init = f"randint:0:{c_eval(bound_expr, env)}" if bound_expr else "randint:0:10"
            else:
                b.init = "random"
        elif p.name in memset:
            b.init, b.compare = "zero", True  # the launcher zeroes it anyway
        elif atomic:
            b.init, b.compare = "zero", True
            b.rule += "; atomically accumulated: zero-initialised, unchecked"
        elif b.count == SCRATCH_COUNT and ("generous" in b.rule):
            b.init = "zero"
        else:
            b.init, b.check_unwritten, b.compare = "sentinel", True, True
        spec.args.append({"kind": "buffer", **asdict(b)})
    if spec.twin:
        twin = build_spec(spec.twin)
        if (twin.launcher, _arguments(twin)) != (spec.launcher, _arguments(spec)):
            raise NotLaunchable(f"the twin {spec.twin} takes other arguments than the file")
    return spec


# ------------------------------------------------------------------------------------- C generation
SENTINEL = {1: "0xA5u", 2: "0x7E5Du", 4: "0x7FC0DEADu", 8: "0x7FF8DEADBEEFCAFEull"}
UINT = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}


def render_driver(spec: DriverSpec, include_path: str, twin_include: str = "") -> str:
    out: list[str] = []
    w = out.append
    w(f"// generated by gpu/driver_gen.py for corpus/{spec.path}; do not edit")
    w(f'#include "{include_path}"')
    if spec.twin:
        # the twin's own headers at file scope first: inside the namespace their guards make them no-ops
        with open(os.path.join(CORPUS, spec.twin)) as handle:
            w("\n".join(line for line in handle.read().splitlines() if re.match(r"\s*#\s*include\s*<", line)))
        w(f'namespace gt_twin {{\n#include "{twin_include}"\n}}  // corpus/{spec.twin}, the clean twin')
    w("#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <cstdint>\n#include <cmath>")
    w("#include <cuda_fp16.h>")
    w("""
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static inline uint32_t rng32() { g_rng ^= g_rng << 13; g_rng ^= g_rng >> 7; g_rng ^= g_rng << 17; return (uint32_t)(g_rng >> 11); }
static inline float rngf() { return (rng32() & 0xFFFFFF) / 16777216.0f * 2.0f - 1.0f; }
#define GT_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \\
    printf("@@GT api_error %d %s %s line %d\\n", (int)e_, cudaGetErrorName(e_), #call, __LINE__); \\
    fflush(stdout); return 3; } } while (0)
template <typename U> static size_t count_sentinel(const void* p, size_t n, U s, size_t* first) {
    size_t c = 0; *first = (size_t)-1;
    for (size_t i = 0; i < n; ++i) { U v; memcpy(&v, (const char*)p + i * sizeof(U), sizeof(U));
        if (v == s) { if (!c) *first = i; ++c; } }
    return c;
}
static double as_double(const void* p, size_t i, int kind) {
    switch (kind) {
        case 0: return ((const float*)p)[i];
        case 1: return __half2float(((const __half*)p)[i]);
        case 2: return ((const int*)p)[i];
        case 3: return (double)((const long long*)p)[i];
        case 4: return ((const unsigned int*)p)[i];
        default: return ((const unsigned char*)p)[i];
    }
}
// elements of a and b whose bits differ, and the largest relative difference among them
static size_t count_diff(const void* a, const void* b, size_t n, size_t size, int kind, double* maxrel) {
    size_t diff = 0; *maxrel = 0;
    for (size_t i = 0; i < n; ++i) { if (memcmp((const char*)a + i * size, (const char*)b + i * size, size) == 0) continue;
        ++diff; double x = as_double(a, i, kind), y = as_double(b, i, kind);
        double rel = fabs(x - y) / fmax(fmax(fabs(x), fabs(y)), 1e-30); if (*maxrel == *maxrel && !(rel <= *maxrel)) *maxrel = rel; }  // a NaN stays
    return diff;
}
// Fill the shared memory of every SM with a NaN pattern: a kernel launched next that reads shared
// elements no thread of its block stored reads this instead of what an earlier launch left there
__global__ void gt_dirty_shared_kernel(size_t words) {
    extern __shared__ uint32_t gt_smem[];
    for (size_t i = threadIdx.x; i < words; i += blockDim.x) gt_smem[i] = 0x7FC0DEADu;
}
static void gt_dirty_shared() {
    int dev = 0, optin = 0, sms = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaFuncSetAttribute(gt_dirty_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
    gt_dirty_shared_kernel<<<4 * sms, 1024, optin>>>(optin / 4);
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) printf("@@GT dirty_error %d %s\\n", (int)e, cudaGetErrorName(e));
}
""")
    kinds = {"float": 0, "__half": 1, "int": 2, "long long": 3, "unsigned int": 4, "unsigned char": 5}
    w("int main(int argc, char** argv) {")
    w('    const bool plain = argc > 1 && strcmp(argv[1], "plain") == 0;')
    w(f"    const int runs = plain ? {4 if spec.twin else 3} : 1;")
    bufs = [a for a in spec.args if a["kind"] == "buffer"]
    for a in spec.args:
        if a["kind"] == "scalar":
            w(f"    const {a['ctype']} {a['name']}_v = {a['value']};")
    for b in bufs:
        n, t, es = b["count"], b["ctype"], TYPE_SIZES[b["ctype"]]
        v = b["name"]
        w(f"    const size_t n_{v} = {n}ull;  // {b['count_expr']}: {b['rule']}")
        w(f"    {t}* h_{v} = ({t}*)malloc(n_{v} * sizeof({t}));")
        if not b["const"] and not b["host"]:  # an output: each run's results are read back
            w(f"    {t}* r_{v} = ({t}*)malloc(n_{v} * sizeof({t}));  // the first run's results")
            w(f"    {t}* o_{v} = ({t}*)malloc(n_{v} * sizeof({t}));  // a later run's results")
            w(f"    bool stable_{v} = true;  // the second run gave the first run's bits")
        init = b["init"]
        if init == "random":
            conv = "__float2half(rngf())" if t == "__half" else "rngf()"
            w(f"    for (size_t i = 0; i < n_{v}; ++i) h_{v}[i] = {conv};")
        elif init == "perm":
            w(f"    for (size_t i = 0; i < n_{v}; ++i) h_{v}[i] = ({t})i;")
            w(f"    for (size_t i = n_{v}; i > 1; --i) {{ size_t j = rng32() % i; {t} x_ = h_{v}[i - 1]; h_{v}[i - 1] = h_{v}[j]; h_{v}[j] = x_; }}")
        elif init == "bytes":
            w(f"    for (size_t i = 0; i < n_{v}; ++i) h_{v}[i] = ({t})(rng32() & 0xFF);")
        elif init.startswith("randint"):
            _, lo, hi = init.split(":")
            w(f"    for (size_t i = 0; i < n_{v}; ++i) h_{v}[i] = ({t})({lo} + (long long)(rng32() % (uint32_t)({hi} - {lo})));")
        elif init == "zero":
            w(f"    memset(h_{v}, 0, n_{v} * sizeof({t}));")
        elif init.startswith("fill:"):
            w(f"    for (size_t i = 0; i < n_{v}; ++i) h_{v}[i] = ({t})({init.split(':', 1)[1]});")
        elif init == "csr_offsets":
            w(f"    h_{v}[0] = 0; for (size_t i = 0; i + 1 < n_{v}; ++i) h_{v}[i + 1] = h_{v}[i] + ({t})(i % {CSR_DEGREES});")
        elif init == "sentinel":
            w(f"    for (size_t i = 0; i < n_{v}; ++i) {{ {UINT[es]} s_ = {SENTINEL[es]}; memcpy((char*)h_{v} + i * {es}, &s_, {es}); }}")
        if b["host"]:
            continue
        w(f"    {t}* d_{v} = nullptr;")
        w(f"    GT_CHECK(cudaMalloc(&d_{v}, n_{v} * sizeof({t})));")
    w("    for (int run = 0; run < runs; ++run) {")
    w("        if (run == 2) gt_dirty_shared();  // the third run finds every SM's shared memory dirty")
    for b in bufs:
        if b["host"]:
            continue
        v, t = b["name"], b["ctype"]
        w(f"        GT_CHECK(cudaMemcpy(d_{v}, h_{v}, n_{v} * sizeof({t}), cudaMemcpyHostToDevice));")
    call_args = []
    for a in spec.args:
        if a["kind"] == "scalar":
            call_args.append(f"{a['name']}_v")
        elif a["host"]:
            call_args.append(f"h_{a['name']}")
        else:
            call_args.append(f"d_{a['name']}")
    w("        GT_CHECK(cudaDeviceSynchronize());")
    if spec.twin:
        w(f"        if (run == 3) gt_twin::{spec.launcher}({', '.join(call_args)});  // the reference run")
        w(f"        else {spec.launcher}({', '.join(call_args)});")
    else:
        w(f"        {spec.launcher}({', '.join(call_args)});")
    w("        cudaError_t le = cudaGetLastError();")
    w('        if (le != cudaSuccess) printf("@@GT launch_error %d %s\\n", (int)le, cudaGetErrorName(le));')
    w("        cudaError_t se = cudaDeviceSynchronize();")
    w('        if (se != cudaSuccess) { printf("@@GT sync_error %d %s\\n", (int)se, cudaGetErrorName(se)); fflush(stdout); return 2; }')
    w("        if (le != cudaSuccess) break;")
    w("        size_t first = 0, cnt = 0, diff = 0; double maxrel = 0; (void)first; (void)cnt;")
    for b in bufs:
        if b["host"] or b["const"]:
            continue
        v, t, es = b["name"], b["ctype"], TYPE_SIZES[b["ctype"]]
        w(f"        {{ {t}* dst = run == 0 ? r_{v} : o_{v};")
        w(f"          GT_CHECK(cudaMemcpy(dst, d_{v}, n_{v} * sizeof({t}), cudaMemcpyDeviceToHost));")
        if b["check_unwritten"]:
            w(f"          if (run == 0) {{ cnt = count_sentinel<{UINT[es]}>(r_{v}, n_{v}, ({UINT[es]}){SENTINEL[es]}, &first);")
            w(f'            if (cnt) printf("@@GT unwritten {v} %zu %zu %zu\\n", cnt, n_{v}, first); }}')
        w(f"          if (run > 0) diff = count_diff(r_{v}, o_{v}, n_{v}, {es}, {kinds[t]}, &maxrel);")
        w(f"          if (run == 1) stable_{v} = diff == 0;")
        if b["compare"]:
            w(f'          if (run == 1 && diff) printf("@@GT nondet {v} %zu %zu %g\\n", diff, n_{v}, maxrel);')
        w(f'          if (run == 2 && diff) printf("@@GT dirty {v} %zu %zu %g %d\\n", diff, n_{v}, maxrel, (int)stable_{v});')
        if spec.twin:
            w(f'          if (run == 3 && diff) printf("@@GT twin {v} %zu %zu %g\\n", diff, n_{v}, maxrel);')
        w("        }")
    w("    }")
    for b in bufs:
        if not b["host"]:
            w(f"    cudaFree(d_{b['name']});")
        w(f"    free(h_{b['name']});" + ("" if b["const"] or b["host"] else f" free(r_{b['name']}); free(o_{b['name']});"))
    w('    printf("@@GT done\\n");')
    w("    return 0;\n}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------- main
def load_manifest() -> list[dict]:
    with open(os.path.join(CORPUS, "cu", "manifest.jsonl")) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def generate(out_dir: str) -> dict:
    os.makedirs(out_dir, exist_ok=True)
    records = []
    for row in load_manifest():
        rel = row["path"]
        rec = {"path": rel, "expected": row.get("expected", []), "bug_class": row.get("bug_class"),
               "manifest_launchable": row.get("launchable"), "nvcc_ok": row.get("nvcc_ok")}
        if not row.get("launchable"):
            rec["status"] = "not_launchable"
            rec["reason"] = "manifest: launchable=false" + ("" if row.get("nvcc_ok", True) else " (does not compile)")
            records.append(rec)
            continue
        try:
            spec = build_spec(rel)
        except NotLaunchable as why:
            rec["status"] = "not_launchable_generic"
            rec["reason"] = str(why)
            records.append(rec)
            continue
        driver_name = rel.replace("cu/", "", 1).replace("/", "__").replace(".cu", "") + ".cu"
        include = os.path.relpath(os.path.join(CORPUS, rel), out_dir)
        with open(os.path.join(out_dir, driver_name), "w") as handle:
            twin = os.path.relpath(os.path.join(CORPUS, spec.twin), out_dir) if spec.twin else ""
            handle.write(render_driver(spec, include, twin))
        rec.update({"status": "driver", "driver": driver_name, "spec": asdict(spec)})
        records.append(rec)
    index = {"generated_by": "gpu/driver_gen.py", "records": records}
    with open(os.path.join(out_dir, "drivers.json"), "w") as handle:
        json.dump(index, handle, indent=1)
    return index


def write_record(index: dict, path: str) -> None:
    """One line per corpus file: what the driver passes (sizes, the rule that chose each) or why none."""
    with open(path, "w") as handle:
        for r in index["records"]:
            line = {"path": r["path"], "status": r["status"]}
            if r["status"] != "driver":
                line["reason"] = r["reason"]
            else:
                s = r["spec"]
                line.update({"launcher": s["launcher"], "kernels": s["kernels"], "sizing": s["sizing"],
                             "ints": s["ints"]})
                if s["why"]:
                    line["why"] = s["why"]
                if s["twin"]:
                    line["twin"] = {"path": s["twin"], "why": TWINS[r["path"]]["why"]}
                line["buffers"] = [
                    {"name": a["name"], "type": a["ctype"], "count": a["count"], "expr": a["count_expr"],
                     "init": a["init"], "checked": a["check_unwritten"], "rule": a["rule"]}
                    for a in s["args"] if a["kind"] == "buffer"]
                floats = {a["name"]: a["value"] for a in s["args"] if a["kind"] == "scalar" and a["ctype"] != "int"}
                if floats:
                    line["floats"] = floats
            handle.write(json.dumps(line) + "\n")


def nvcc_check(out_dir: str, index: dict, jobs: int = 2) -> list[tuple[str, int, str]]:
    def one(rec):
        cmd = ["nvcc", "-arch=sm_90", "-lineinfo", "-c", "-o", os.devnull, rec["driver"]]
        proc = subprocess.run(cmd, cwd=out_dir, capture_output=True, text=True)
        return rec["driver"], proc.returncode, proc.stderr[-2000:]
    todo = [r for r in index["records"] if r["status"] == "driver"]
    with ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(one, todo))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "gpu", "build"))
    ap.add_argument("--check", action="store_true", help="nvcc -c every driver here (no GPU needed)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--record", default=os.path.join(ROOT, "gpu", "results", "drivers.jsonl"),
                    help="where to write the committed summary of every driver ('' for nowhere)")
    args = ap.parse_args(argv)
    index = generate(args.out)
    if args.record:
        os.makedirs(os.path.dirname(args.record), exist_ok=True)
        write_record(index, args.record)
    counts: dict[str, int] = {}
    for r in index["records"]:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print(json.dumps(counts))
    for r in index["records"]:
        if r["status"] == "not_launchable_generic":
            print(f"  not launchable by the generic driver: {r['path']}: {r['reason']}")
    if args.check:
        bad = [(d, rc, err) for d, rc, err in nvcc_check(args.out, index, args.jobs) if rc != 0]
        for d, rc, err in bad:
            print(f"  nvcc failed on {d}:\n{err}")
        print(f"nvcc -c: {len([r for r in index['records'] if r['status'] == 'driver']) - len(bad)} ok, {len(bad)} failed")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
