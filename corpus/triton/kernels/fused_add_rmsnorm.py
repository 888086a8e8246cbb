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
PERF = [  # the launches these kernels run in practice (launch spec perf:), each with its source
    dict(name='decode_b64', source="residual add + RMSNorm at batch-64 decode, hidden 2048 (Llama-3.2-1B; the binary's BLOCK = 2048 bounds it)",
         grid=[64, 1, 1], values={'n_cols': 2048}, counts={'x': 131072, 'residual': 131072, 'w': 2048}),
    dict(name='prefill_4k', source='residual add + RMSNorm for a 4096-token prefill, hidden 2048 (Llama-3.2-1B)',
         grid=[4096, 1, 1], values={'n_cols': 2048}, counts={'x': 8388608, 'residual': 8388608, 'w': 2048}),
]
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
        dict(name="n_cols", value=N_COLS, type="i32", vary=[1, N_COLS],
             why="`cols < n_cols` masks every access; 0 is excluded: the variance divides by n_cols"),
        dict(name="eps", value=1e-5, type="f32"),
    ],
    perf=PERF,
)]
