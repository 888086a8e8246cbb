"""Masked elementwise add: out = x + y (fp32)."""
import triton
import triton.language as tl


@triton.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


N = 10000  # not a multiple of BLOCK: the last program is masked
BLOCK = 1024
PERF = [  # the launches these kernels run in practice (launch spec perf:), each with its source
    dict(name='stream_4m', source="4M f32 elements: the issue's BabelStream-style vector add (MI300X measures ~4.1 TB/s there)",
         grid=[4096, 1, 1], values={'n': 4194304}, counts={'x': 4194304, 'y': 4194304, 'out': 4194304}),
]
SPECS = [dict(
    fn=vector_add_kernel,
    signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
    constexprs={"BLOCK": BLOCK},
    num_warps=4,
    grid=[triton.cdiv(N, BLOCK), 1, 1],
    args=[
        dict(name="x", buffer="f32", count=N, init={"normal": [0, 1]}),
        dict(name="y", buffer="f32", count=N, init={"normal": [0, 1]}),
        dict(name="out", buffer="f32", count=N, output=True),
        dict(name="n", value=N, type="i32", vary=[0, N], why="`offs < n` masks every access"),
    ],
    perf=PERF,
)]
