"""Row LayerNorm with affine weight/bias (fp16 in/out), also writing per-row mean and rstd (fp32)."""
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, mean_ptr, rstd_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = xc * rstd * w + b
    tl.store(out_ptr + row * n_cols + cols, y.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


ROWS = 41
N_COLS = 900
BLOCK = 1024
PERF = [  # the launches these kernels run in practice (launch spec perf:), each with its source
    dict(name='bert_large_4k', source='LayerNorm for 4096 tokens (BERT-large: hidden 1024, batch 8 x seq 512)',
         grid=[4096, 1, 1], values={'n_cols': 1024}, counts={'x': 4194304, 'w': 1024, 'b': 1024, 'out': 4194304, 'mean': 4096, 'rstd': 4096}),
]
SPECS = [dict(
    fn=layernorm_kernel,
    signature={"x_ptr": "*fp16", "w_ptr": "*fp16", "b_ptr": "*fp16", "out_ptr": "*fp16", "mean_ptr": "*fp32",
               "rstd_ptr": "*fp32", "n_cols": "i32", "eps": "fp32", "BLOCK": "constexpr"},
    constexprs={"BLOCK": BLOCK},
    num_warps=4,
    grid=[ROWS, 1, 1],
    args=[
        dict(name="x", buffer="f16", count=ROWS * N_COLS, init={"normal": [0.5, 2]}),
        dict(name="w", buffer="f16", count=N_COLS, init={"uniform": [0.5, 1.5]}),
        dict(name="b", buffer="f16", count=N_COLS, init={"normal": [0, 0.1]}),
        dict(name="out", buffer="f16", count=ROWS * N_COLS, output=True),
        dict(name="mean", buffer="f32", count=ROWS, output=True),
        dict(name="rstd", buffer="f32", count=ROWS, output=True),
        dict(name="n_cols", value=N_COLS, type="i32", vary=[1, N_COLS],
             why="`cols < n_cols` masks every access; 0 is excluded: mean and variance divide by n_cols"),
        dict(name="eps", value=1e-5, type="f32"),
    ],
    perf=PERF,
)]
