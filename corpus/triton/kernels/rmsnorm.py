"""Row-wise RMSNorm with weight: out = x / sqrt(mean(x^2) + eps) * w (fp16 in/out, fp32 math)."""
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    var = tl.sum(x * x, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = x * rstd * w
    tl.store(out_ptr + row * n_cols + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


ROWS = 37
N_COLS = 1000  # < BLOCK: masked tail in every row
BLOCK = 1024
PERF = [  # the launches these kernels run in practice (launch spec perf:), each with its source
    dict(name='decode_b64', source="RMSNorm at batch-64 decode (Qwen2.5-0.5B: hidden 896, RMSNorm; the binary's BLOCK = 1024 bounds the width)",
         grid=[64, 1, 1], values={'n_cols': 896}, counts={'x': 57344, 'w': 896, 'out': 57344}),
    dict(name='prefill_4k', source='RMSNorm for a 4096-token prefill (Qwen2.5-0.5B: hidden 896, RMSNorm)',
         grid=[4096, 1, 1], values={'n_cols': 896}, counts={'x': 3670016, 'w': 896, 'out': 3670016}),
]
SPECS = [dict(
    fn=rmsnorm_kernel,
    signature={"x_ptr": "*fp16", "w_ptr": "*fp16", "out_ptr": "*fp16", "n_cols": "i32", "eps": "fp32",
               "BLOCK": "constexpr"},
    constexprs={"BLOCK": BLOCK},
    num_warps=4,
    grid=[ROWS, 1, 1],
    args=[
        dict(name="x", buffer="f16", count=ROWS * N_COLS, init={"normal": [0, 1]}),
        dict(name="w", buffer="f16", count=N_COLS, init={"uniform": [0.5, 1.5]}),
        dict(name="out", buffer="f16", count=ROWS * N_COLS, output=True),
        dict(name="n_cols", value=N_COLS, type="i32", vary=[1, N_COLS],
             why="`cols < n_cols` masks every access; 0 is excluded: the variance divides by n_cols"),
        dict(name="eps", value=1e-6, type="f32"),
    ],
    perf=PERF,
)]
