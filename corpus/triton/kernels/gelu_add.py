"""Bias/residual add followed by tanh-GELU: out = gelu(x + y) (fp16 in/out, fp32 math)."""
import triton
import triton.language as tl


@triton.jit
def gelu_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = x + y
    u = 0.7978845608028654 * (z + 0.044715 * z * z * z)
    t = 1.0 - 2.0 / (tl.exp(2.0 * u) + 1.0)  # tanh(u)
    out = 0.5 * z * (1.0 + t)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


N = 12345
BLOCK = 512
PERF = [  # the launches these kernels run in practice (launch spec perf:), each with its source
    dict(name='decode_b64', source='GELU + add on a batch-64 decode MLP activation, 64 x 16384 (GPT-style 4 x 4096 intermediate)',
         grid=[2048, 1, 1], values={'n': 1048576}, counts={'x': 1048576, 'y': 1048576, 'out': 1048576}),
]
SPECS = [dict(
    fn=gelu_add_kernel,
    signature={"x_ptr": "*fp16", "y_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32", "BLOCK": "constexpr"},
    constexprs={"BLOCK": BLOCK},
    num_warps=4,
    grid=[triton.cdiv(N, BLOCK), 1, 1],
    args=[
        dict(name="x", buffer="f16", count=N, init={"normal": [0, 1]}),
        dict(name="y", buffer="f16", count=N, init={"normal": [0, 0.5]}),
        dict(name="out", buffer="f16", count=N, output=True),
        dict(name="n", value=N, type="i32", vary=[0, N], why="`offs < n` masks every access"),
    ],
    perf=PERF,
)]
