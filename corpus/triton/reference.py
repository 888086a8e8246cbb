"""NumPy references for the Triton corpus (corpus/triton/kernels/*.py).

One function per kernel, named like the kernel: ``f(args, grid) -> {output_name: array}``.

* ``args`` maps each launch-spec argument name (launch/<kernel>.yaml, without the trailing ``{pointer: null}``
  entries) to its value: buffers as flat NumPy arrays holding the buffer's contents *before* the launch, scalars
  as Python numbers. Floating-point buffers (f32, f16, bf16, fp8*) are passed as float32 arrays of the exact
  stored values; integer buffers as int64 arrays.
* ``grid`` is the launch spec's grid (some shapes, e.g. the row count, are only implied by it).
* The result maps every buffer the kernel writes (in-place ones included) to its expected flat contents, as
  float32 (float buffers; fp8 outputs are the decoded fp8 values) or int64 arrays. Compare with
  ``TOLERANCE[kernel][name] = (atol, rtol)``: ``|got - want| <= atol + rtol * |want|``.

Only NumPy is needed. ``fp8_round`` / ``fp8_encode`` / ``fp8_decode`` model e4m3 FN (OCP, bias 7, max 448) and
e4m3 FNUZ (bias 8, max 240) with round-to-nearest-even.
"""
import numpy as np

# ----------------------------------------------------------------------------------------------- fp8 helpers

FP8_FORMATS = {
    # name: (exponent bias, max finite value)
    "fp8e4m3fn": (7, 448.0),
    "fp8e4m3fnuz": (8, 240.0),
}


def fp8_round(x, fmt):
    """Round float values to the nearest e4m3 value of ``fmt`` (ties to even), saturating at +-max."""
    bias, fmax = FP8_FORMATS[fmt]
    x = np.asarray(x, dtype=np.float64)
    a = np.minimum(np.abs(x), fmax)
    emin = 1 - bias                                  # exponent of the smallest normal
    with np.errstate(divide="ignore"):
        e = np.floor(np.log2(np.where(a > 0, a, 1.0)))
    e = np.maximum(e, emin)
    quantum = np.exp2(e - 3)                          # 3 mantissa bits
    r = np.minimum(np.round(a / quantum) * quantum, fmax)
    return (np.sign(x) * r).astype(np.float32)


def fp8_encode(x, fmt):
    """Encode values (rounded with fp8_round) to fp8 bytes (uint8)."""
    bias, _ = FP8_FORMATS[fmt]
    r = fp8_round(x, fmt).astype(np.float64)
    a = np.abs(r)
    # FN has a negative zero (0x80); in FNUZ 0x80 is NaN, so zero is always 0x00 there.
    neg = np.signbit(np.asarray(x, dtype=np.float64)) if fmt == "fp8e4m3fn" else (np.signbit(r) & (a > 0))
    sign = neg.astype(np.uint8) << 7
    with np.errstate(divide="ignore"):
        e = np.floor(np.log2(np.where(a > 0, a, 1.0))) + bias
    normal = (e >= 1) & (a > 0)
    mant_n = np.round((a / np.exp2(e - bias) - 1.0) * 8.0)
    mant_s = np.round(a / np.exp2(1 - bias) * 8.0)
    code = np.where(normal, (e.astype(np.int64) << 3) | mant_n.astype(np.int64), mant_s.astype(np.int64))
    code = np.where(a > 0, code, 0).astype(np.uint8)
    return code | sign


def fp8_decode(code, fmt):
    """Decode fp8 bytes to float32 (NaN encodings: 0x80 for FNUZ, S.1111.111 for FN)."""
    bias, _ = FP8_FORMATS[fmt]
    c = np.asarray(code, dtype=np.uint8).astype(np.int64)
    s = np.where(c & 0x80, -1.0, 1.0)
    e = (c >> 3) & 0xF
    m = c & 0x7
    v = np.where(e > 0, np.exp2(e - bias) * (1.0 + m / 8.0), np.exp2(1 - bias) * (m / 8.0)) * s
    if fmt == "fp8e4m3fnuz":
        v = np.where(c == 0x80, np.nan, v)
    else:
        v = np.where((c & 0x7F) == 0x7F, np.nan, v)
    return v.astype(np.float32)


# ----------------------------------------------------------------------------------------------- helpers

def _f32(a):
    return np.asarray(a, dtype=np.float32)


def _rows(a, ncols):
    a = _f32(a)
    return a.reshape(-1, ncols)


def _softmax(x, axis=-1):
    x = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(x)
    return e / np.sum(e, axis=axis, keepdims=True)


# ----------------------------------------------------------------------------------------------- kernels

def vector_add_kernel(args, grid):
    return {"out": _f32(args["x"]) + _f32(args["y"])}


def gelu_add_kernel(args, grid):
    z = _f32(args["x"]).astype(np.float64) + _f32(args["y"])
    out = 0.5 * z * (1.0 + np.tanh(0.7978845608028654 * (z + 0.044715 * z ** 3)))
    return {"out": out.astype(np.float32)}


def silu_and_mul_kernel(args, grid):
    d = args["d"]
    x = _rows(args["x"], 2 * d).astype(np.float64)
    gate, up = x[:, :d], x[:, d:]
    return {"out": (gate / (1.0 + np.exp(-gate)) * up).astype(np.float32).ravel()}


def _rmsnorm(x, w, eps):
    x = x.astype(np.float64)
    rstd = 1.0 / np.sqrt(np.mean(x * x, axis=1, keepdims=True) + eps)
    return (x * rstd * w.astype(np.float64)).astype(np.float32)


def rmsnorm_kernel(args, grid):
    x = _rows(args["x"], args["n_cols"])
    return {"out": _rmsnorm(x, _f32(args["w"]), args["eps"]).ravel()}


def fused_add_rmsnorm_kernel(args, grid):
    n = args["n_cols"]
    s = _rows(args["x"], n) + _rows(args["residual"], n)
    return {"x": _rmsnorm(s, _f32(args["w"]), args["eps"]).ravel(), "residual": s.ravel()}


def softmax_kernel(args, grid):
    rows, n = grid[0], args["n_cols"]
    x = _rows(args["x"], args["x_row_stride"])[:rows, :n].astype(np.float64)
    out = np.zeros((rows, args["out_row_stride"]), dtype=np.float64)
    out[:, :n] = _softmax(x)
    return {"out": out.astype(np.float32).ravel()}


def layernorm_kernel(args, grid):
    x = _rows(args["x"], args["n_cols"]).astype(np.float64)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    rstd = 1.0 / np.sqrt(var + args["eps"])
    y = (x - mean) * rstd * _f32(args["w"]) + _f32(args["b"])
    return {"out": y.astype(np.float32).ravel(), "mean": mean.astype(np.float32).ravel(),
            "rstd": rstd.astype(np.float32).ravel()}


def rotary_kernel(args, grid):
    tokens, num_q_heads = grid[0], grid[1]
    dim = args["q_token_stride"] // num_q_heads
    half = dim // 2
    hkv = args["num_kv_heads"]
    cs = _rows(args["cos_sin"], dim).astype(np.float64)
    pos = np.asarray(args["positions"], dtype=np.int64)
    cos, sin = cs[pos, :half][:, None, :], cs[pos, half:][:, None, :]

    def rot(buf, stride, heads):
        a = _rows(buf, stride).astype(np.float64).copy()
        x = a[:tokens, :heads * dim].reshape(tokens, heads, dim)
        x1, x2 = x[..., :half].copy(), x[..., half:].copy()
        x[..., :half] = x1 * cos - x2 * sin
        x[..., half:] = x2 * cos + x1 * sin
        a[:tokens, :heads * dim] = x.reshape(tokens, heads * dim)
        return a.astype(np.float32).ravel()

    return {"q": rot(args["q"], args["q_token_stride"], num_q_heads),
            "k": rot(args["k"], args["k_token_stride"], hkv)}


def matmul_kernel(args, grid):
    m, n, k = args["M"], args["N"], args["K"]
    a = _f32(args["a"]).reshape(-1, args["stride_am"])[:m, :k].astype(np.float64)
    b = _f32(args["b"]).reshape(-1, args["stride_bk"])[:k, :n].astype(np.float64)
    c = np.zeros((m, args["stride_cm"]), dtype=np.float64)
    c[:, :n] = a @ b
    return {"c": c.astype(np.float32).ravel()}


def matmul_128_kernel(args, grid):
    return matmul_kernel(args, grid)


def fp8_gemm_kernel(args, grid):
    m, n, k = args["M"], args["N"], args["K"]
    code = lambda x: (np.asarray(x, dtype=np.int64) & 0xB7).astype(np.uint8)  # the kernel's bit mask
    a = fp8_decode(code(args["a"]), "fp8e4m3fn").astype(np.float64).reshape(-1, args["stride_am"])[:m, :k]
    b = fp8_decode(code(args["b"]), "fp8e4m3fn").astype(np.float64).reshape(-1, args["stride_bk"])[:k, :n]
    c = np.zeros((m, args["stride_cm"]), dtype=np.float64)
    c[:, :n] = a @ b
    return {"c": c.astype(np.float32).ravel()}


def decode_attention_kernel(args, grid):
    batch, heads = grid[0], grid[1]
    max_seq = args["max_seq"]
    q = _f32(args["q"]).astype(np.float64)
    dim = q.size // (batch * heads)
    q = q.reshape(batch, heads, dim)
    kv_heads = _f32(args["k_cache"]).size // (batch * max_seq * dim)
    k = _f32(args["k_cache"]).astype(np.float64).reshape(batch, max_seq, kv_heads, dim)
    v = _f32(args["v_cache"]).astype(np.float64).reshape(batch, max_seq, kv_heads, dim)
    group = heads // kv_heads
    out = np.zeros((batch, heads, dim), dtype=np.float64)
    for b in range(batch):
        n = int(args["seq_lens"][b])
        for h in range(heads):
            kh = h // group
            p = _softmax(k[b, :n, kh, :] @ q[b, h] * args["sm_scale"])
            out[b, h] = p @ v[b, :n, kh, :]
    return {"out": out.astype(np.float32).ravel()}


def _fp8_quant(args, fmt):
    _, fmax = FP8_FORMATS[fmt]
    x = _rows(args["x"], args["n_cols"])
    amax = np.maximum(np.max(np.abs(x), axis=1, keepdims=True), np.float32(1e-12))
    scale = (amax / np.float32(fmax)).astype(np.float32)
    y = np.clip(x / scale, -fmax, fmax)
    return {"out": fp8_round(y, fmt).ravel(), "scale": scale.ravel()}


def fp8_quant_fnuz_kernel(args, grid):
    return _fp8_quant(args, "fp8e4m3fnuz")


def fp8_quant_fn_kernel(args, grid):
    return _fp8_quant(args, "fp8e4m3fn")


def argmax_kernel(args, grid):
    x = _rows(args["logits"], args["vocab"])
    return {"out": np.argmax(x, axis=1).astype(np.int64)}


def embedding_kernel(args, grid):
    dim = args["dim"]
    table = _rows(args["table"], dim)
    ids = np.asarray(args["ids"], dtype=np.int64)
    return {"out": table[ids].ravel()}


REFERENCES = {f.__name__: f for f in [
    vector_add_kernel, gelu_add_kernel, silu_and_mul_kernel, rmsnorm_kernel, fused_add_rmsnorm_kernel,
    softmax_kernel, layernorm_kernel, rotary_kernel, matmul_kernel, matmul_128_kernel, fp8_gemm_kernel,
    decode_attention_kernel,
    fp8_quant_fnuz_kernel, fp8_quant_fn_kernel, argmax_kernel, embedding_kernel]}

_F16 = (2e-3, 4e-3)
_BF16 = (1e-2, 1.6e-2)
_FP8 = (2e-3, 0.126)   # one e4m3 ulp
TOLERANCE = {
    "vector_add_kernel": {"out": (1e-6, 1e-6)},
    "gelu_add_kernel": {"out": _F16},
    "silu_and_mul_kernel": {"out": _BF16},
    "rmsnorm_kernel": {"out": _F16},
    "fused_add_rmsnorm_kernel": {"x": _BF16, "residual": _BF16},
    "softmax_kernel": {"out": (1e-6, 1e-4)},
    "layernorm_kernel": {"out": _F16, "mean": (1e-5, 1e-5), "rstd": (1e-5, 1e-5)},
    "rotary_kernel": {"q": _F16, "k": _F16},
    "matmul_kernel": {"c": (2e-2, 4e-3)},
    "matmul_128_kernel": {"c": (2e-2, 4e-3)},
    "fp8_gemm_kernel": {"c": (1e-4, 1e-5)},   # exact products, fp32 sums of <= 256 terms below 225
    "decode_attention_kernel": {"out": _F16},
    "fp8_quant_fnuz_kernel": {"out": _FP8, "scale": (0.0, 1e-6)},
    "fp8_quant_fn_kernel": {"out": _FP8, "scale": (0.0, 1e-6)},
    "argmax_kernel": {"out": (0, 0)},
    "embedding_kernel": {"out": (0, 0)},
}


def reference(kernel, args, grid):
    return REFERENCES[kernel](args, grid)
