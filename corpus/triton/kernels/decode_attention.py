"""Decode attention (one query token per sequence) with GQA and an online softmax over key blocks (fp16).
q [B, H, D], k/v caches [B, max_seq, Hkv, D], seq_lens [B] (i32), out [B, H, D]; grid (B, H)."""
import triton
import triton.language as tl


@triton.jit
def decode_attention_kernel(q_ptr, k_cache_ptr, v_cache_ptr, out_ptr, seq_lens_ptr, sm_scale, max_seq,
                            NUM_KV_HEADS: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    num_heads = tl.num_programs(1)
    kvh = h // (num_heads // NUM_KV_HEADS)
    d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + (b * num_heads + h) * HEAD_DIM + d).to(tl.float32)
    seq_len = tl.load(seq_lens_ptr + b)
    kv_base = b.to(tl.int64) * max_seq * NUM_KV_HEADS * HEAD_DIM + kvh * HEAD_DIM

    m_i = tl.full([1], float("-inf"), tl.float32)
    l_i = tl.zeros([1], dtype=tl.float32)
    acc = tl.zeros([HEAD_DIM], dtype=tl.float32)
    for start in range(0, seq_len, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        n_mask = n < seq_len
        offs = kv_base + n[:, None] * (NUM_KV_HEADS * HEAD_DIM) + d[None, :]
        k = tl.load(k_cache_ptr + offs, mask=n_mask[:, None], other=0.0).to(tl.float32)
        s = tl.sum(k * q[None, :], axis=1) * sm_scale
        s = tl.where(n_mask, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=0))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new)
        v = tl.load(v_cache_ptr + offs, mask=n_mask[:, None], other=0.0).to(tl.float32)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        m_i = m_new
    out = acc / l_i
    tl.store(out_ptr + (b * num_heads + h) * HEAD_DIM + d, out.to(out_ptr.dtype.element_ty))


B, H, HKV, D, MAX_SEQ = 3, 8, 2, 64, 100
PERF = [  # the launches these kernels run in practice (launch spec perf:), each with its source
    dict(name='decode_b64', source="batch-64 decode (the binary fixes 2 kv heads x 64, 8 q heads); sequence lengths come from the spec's init (1..100): a perf launch cannot raise them",
         grid=[64, 8, 1], values={'max_seq': 100}, counts={'q': 32768, 'k_cache': 819200, 'v_cache': 819200, 'out': 32768, 'seq_lens': 64}),
]
SPECS = [dict(
    fn=decode_attention_kernel,
    signature={"q_ptr": "*fp16", "k_cache_ptr": "*fp16", "v_cache_ptr": "*fp16", "out_ptr": "*fp16",
               "seq_lens_ptr": "*i32", "sm_scale": "fp32", "max_seq": "i32", "NUM_KV_HEADS": "constexpr",
               "HEAD_DIM": "constexpr", "BLOCK_N": "constexpr"},
    constexprs={"NUM_KV_HEADS": HKV, "HEAD_DIM": D, "BLOCK_N": 32},
    num_warps=4,
    grid=[B, H, 1],
    args=[
        dict(name="q", buffer="f16", count=B * H * D, init={"normal": [0, 1]}),
        dict(name="k_cache", buffer="f16", count=B * MAX_SEQ * HKV * D, init={"normal": [0, 1]}),
        dict(name="v_cache", buffer="f16", count=B * MAX_SEQ * HKV * D, init={"normal": [0, 1]}),
        dict(name="out", buffer="f16", count=B * H * D, output=True),
        dict(name="seq_lens", buffer="i32", count=B, init={"ints": [1, MAX_SEQ]}),
        dict(name="sm_scale", value=0.125, type="f32"),
        dict(name="max_seq", value=MAX_SEQ, type="i32",
             why="the cache's per-sequence stride; seq_lens holds lengths up to it, so a smaller one reads past each sequence's slots"),
    ],
    perf=PERF,
)]
