"""vLLM-style SwiGLU activation: x is [T, 2*d] (gate | up), out[t, :] = silu(gate) * up (bf16)."""
import triton
import triton.language as tl


@triton.jit
def silu_and_mul_kernel(x_ptr, out_ptr, d, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < d
    gate = tl.load(x_ptr + row * 2 * d + cols, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(x_ptr + row * 2 * d + d + cols, mask=mask, other=0.0).to(tl.float32)
    y = gate / (1.0 + tl.exp(-gate)) * up
    tl.store(out_ptr + row * d + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


T = 37
D = 688  # 2.7 blocks of 256: the last column block is masked
BLOCK = 256
PERF = [  # the launches these kernels run in practice (launch spec perf:), each with its source
    dict(name='decode_b1', source='SwiGLU at batch-1 decode, intermediate 14336 (Llama-3-8B: hidden 4096, intermediate 14336, vocab 128256, 32 q / 8 kv heads x 128)',
         grid=[1, 56, 1], values={'d': 14336}, counts={'x': 28672, 'out': 14336}),
    dict(name='decode_b64', source='SwiGLU at batch-64 decode, intermediate 14336 (Llama-3-8B: hidden 4096, intermediate 14336, vocab 128256, 32 q / 8 kv heads x 128)',
         grid=[64, 56, 1], values={'d': 14336}, counts={'x': 1835008, 'out': 917504}),
]
SPECS = [dict(
    fn=silu_and_mul_kernel,
    signature={"x_ptr": "*bf16", "out_ptr": "*bf16", "d": "i32", "BLOCK": "constexpr"},
    constexprs={"BLOCK": BLOCK},
    num_warps=4,
    grid=[T, triton.cdiv(D, BLOCK), 1],
    args=[
        dict(name="x", buffer="bf16", count=T * 2 * D, init={"normal": [0, 1]}),
        dict(name="out", buffer="bf16", count=T * D, output=True),
        dict(name="d", value=D, type="i32", vary=[0, D], why="`cols < d` masks every access (rows are 2d / d apart)"),
    ],
    perf=PERF,
)]
