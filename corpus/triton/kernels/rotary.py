"""vLLM-style NeoX rotary embedding, in place on q [T, Hq, D] and k [T, Hkv, D] (fp16).
cos_sin is a [max_pos, D] cache (first D/2 columns cos, last D/2 sin), gathered by positions[t]."""
import triton
import triton.language as tl


@triton.jit
def rotary_kernel(positions_ptr, q_ptr, k_ptr, cos_sin_ptr, num_kv_heads, q_token_stride, k_token_stride,
                  HEAD_DIM: tl.constexpr):
    tok = tl.program_id(0).to(tl.int64)
    head = tl.program_id(1)
    HALF: tl.constexpr = HEAD_DIM // 2
    offs = tl.arange(0, HALF)
    pos = tl.load(positions_ptr + tok)
    cos = tl.load(cos_sin_ptr + pos * HEAD_DIM + offs)
    sin = tl.load(cos_sin_ptr + pos * HEAD_DIM + HALF + offs)

    q_base = q_ptr + tok * q_token_stride + head * HEAD_DIM
    x1 = tl.load(q_base + offs).to(tl.float32)
    x2 = tl.load(q_base + HALF + offs).to(tl.float32)
    tl.store(q_base + offs, (x1 * cos - x2 * sin).to(q_ptr.dtype.element_ty))
    tl.store(q_base + HALF + offs, (x2 * cos + x1 * sin).to(q_ptr.dtype.element_ty))

    if head < num_kv_heads:
        k_base = k_ptr + tok * k_token_stride + head * HEAD_DIM
        y1 = tl.load(k_base + offs).to(tl.float32)
        y2 = tl.load(k_base + HALF + offs).to(tl.float32)
        tl.store(k_base + offs, (y1 * cos - y2 * sin).to(k_ptr.dtype.element_ty))
        tl.store(k_base + HALF + offs, (y2 * cos + y1 * sin).to(k_ptr.dtype.element_ty))


T = 19
HQ = 8
HKV = 2
D = 128
MAX_POS = 64
PERF = [  # the launches these kernels run in practice (launch spec perf:), each with its source
    dict(name='decode_b64', source="NeoX rotary embedding at batch-64 decode, 32 q / 8 kv heads x 128 (Llama-3-8B: hidden 4096, intermediate 14336, vocab 128256, 32 q / 8 kv heads x 128); positions from the spec's init (0..63)",
         grid=[64, 32, 1], values={'num_kv_heads': 8, 'q_token_stride': 4096, 'k_token_stride': 1024}, counts={'positions': 64, 'q': 262144, 'k': 65536}),
    dict(name='prefill_4k', source='the same for a 4096-token prefill',
         grid=[4096, 32, 1], values={'num_kv_heads': 8, 'q_token_stride': 4096, 'k_token_stride': 1024}, counts={'positions': 4096, 'q': 16777216, 'k': 4194304}),
]
SPECS = [dict(
    fn=rotary_kernel,
    signature={"positions_ptr": "*i64", "q_ptr": "*fp16", "k_ptr": "*fp16", "cos_sin_ptr": "*fp32",
               "num_kv_heads": "i32", "q_token_stride": "i32", "k_token_stride": "i32", "HEAD_DIM": "constexpr"},
    constexprs={"HEAD_DIM": D},
    divisible_by_16=["q_token_stride", "k_token_stride"],
    num_warps=1,
    grid=[T, HQ, 1],
    args=[
        dict(name="positions", buffer="i64", count=T, init={"ints": [0, MAX_POS - 1]}),
        dict(name="q", buffer="f16", count=T * HQ * D, init={"normal": [0, 1]}, inout=True),
        dict(name="k", buffer="f16", count=T * HKV * D, init={"normal": [0, 1]}, inout=True),
        dict(name="cos_sin", buffer="f32", count=MAX_POS * D, init={"uniform": [-1, 1]}),
        dict(name="num_kv_heads", value=HKV, type="i32", vary=[1, HKV],
             why="`head < num_kv_heads` picks the k heads rotated; k holds 2 heads per token"),
        dict(name="q_token_stride", value=HQ * D, type="i32",
             why='a token stride, compiled with tt.divisibility 16 (divisible_by_16): the binary may assume a multiple of 16, which a range cannot say'),
        dict(name="k_token_stride", value=HKV * D, type="i32",
             why='a token stride, compiled with tt.divisibility 16 (divisible_by_16): the binary may assume a multiple of 16, which a range cannot say'),
    ],
    perf=PERF,
)]
