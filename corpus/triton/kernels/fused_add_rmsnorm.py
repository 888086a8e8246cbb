"""vLLM-style fused residual add + RMSNorm, in place (bf16):
residual <- x + residual;  x <- residual / sqrt(mean(residual^2) + eps) * w."""
import triton
import triton.language as tl


@triton.jit
def fused_add_rmsnorm_kernel(x_ptr, residual_ptr, w_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(residual_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    s = x + r
    tl.store(residual_ptr + row * n_cols + cols, s.to(residual_ptr.dtype.element_ty), mask=mask)
    var = tl.sum(s * s, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = s * rstd * w
    tl.store(x_ptr + row * n_cols + cols, y.to(x_ptr.dtype.element_ty), mask=mask)


ROWS = 29
N_COLS = 1200
BLOCK = 2048
SPECS = [dict(
    fn=fused_add_rmsnorm_kernel,
    signature={"x_ptr": "*bf16", "residual_ptr": "*bf16", "w_ptr": "*bf16", "n_cols": "i32", "eps": "fp32",
               "BLOCK": "constexpr"},
    constexprs={"BLOCK": BLOCK},
    num_warps=8,
    grid=[ROWS, 1, 1],
    args=[
        dict(name="x", buffer="bf16", count=ROWS * N_COLS, init={"normal": [0, 1]}, inout=True),
        dict(name="residual", buffer="bf16", count=ROWS * N_COLS, init={"normal": [0, 1]}, inout=True),
        dict(name="w", buffer="bf16", count=N_COLS, init={"uniform": [0.5, 1.5]}),
        dict(name="n_cols", value=N_COLS, type="i32"),
        dict(name="eps", value=1e-5, type="f32"),
    ],
)]
