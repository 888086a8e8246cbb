"""Row softmax over a strided matrix (fp32): out[r, :n] = softmax(x[r, :n])."""
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, x_row_stride, out_row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)


ROWS = 53
N_COLS = 781
X_STRIDE = 800  # padded input rows
BLOCK = 1024
PERF = [  # the launches these kernels run in practice (launch spec perf:), each with its source
    dict(name='bert_large_seq512', source='attention-probability softmax of one BERT-large sequence: 16 heads x 512 queries = 8192 rows of 512',
         grid=[8192, 1, 1], values={'n_cols': 512, 'x_row_stride': 512, 'out_row_stride': 512}, counts={'x': 4194304, 'out': 4194304}),
]
SPECS = [dict(
    fn=softmax_kernel,
    signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32", "x_row_stride": "i32",
               "out_row_stride": "i32", "BLOCK": "constexpr"},
    constexprs={"BLOCK": BLOCK},
    divisible_by_16=["x_row_stride"],
    num_warps=4,
    grid=[ROWS, 1, 1],
    args=[
        dict(name="x", buffer="f32", count=ROWS * X_STRIDE, init={"normal": [0, 2]}),
        dict(name="out", buffer="f32", count=ROWS * N_COLS, output=True),
        # Any row length up to N_COLS fits the buffers: verify adds boundary launches (0 is not a softmax).
        dict(name="n_cols", value=N_COLS, type="i32", vary=[1, N_COLS],
             why="`cols < n_cols` masks every access; 0 is excluded: the normalisation divides by an empty sum"),
        dict(name="x_row_stride", value=X_STRIDE, type="i32",
             why='a row stride, compiled with tt.divisibility 16 (divisible_by_16): the binary may assume a multiple of 16, which a range cannot say'),
        dict(name="out_row_stride", value=N_COLS, type="i32",
             why='a row stride: below n_cols the rows overlap'),
    ],
    perf=PERF,
)]
