"""Greedy sampling: per-row argmax over the vocabulary (fp32 logits -> i32 index, first index on ties).
Each lane keeps its own running max over the column blocks; lanes are reduced at the end."""
import triton
import triton.language as tl


@triton.jit
def argmax_kernel(logits_ptr, out_ptr, vocab, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    lanes = tl.arange(0, BLOCK)
    best = tl.full([BLOCK], float("-inf"), tl.float32)
    best_idx = tl.zeros([BLOCK], dtype=tl.int32)
    for start in range(0, vocab, BLOCK):
        cols = start + lanes
        x = tl.load(logits_ptr + row * vocab + cols, mask=cols < vocab, other=float("-inf"))
        better = x > best
        best = tl.where(better, x, best)
        best_idx = tl.where(better, cols, best_idx)
    m = tl.max(best, axis=0)
    idx = tl.min(tl.where(best == m, best_idx, 2147483647), axis=0)
    tl.store(out_ptr + row, idx)


ROWS = 7
VOCAB = 5000
BLOCK = 1024
PERF = [  # the launches these kernels run in practice (launch spec perf:), each with its source
    dict(name='sample_b1', source='greedy sampling over the vocabulary at batch-1 decode (Llama-3-8B: hidden 4096, intermediate 14336, vocab 128256, 32 q / 8 kv heads x 128)',
         grid=[1, 1, 1], values={'vocab': 128256}, counts={'logits': 128256, 'out': 1}),
    dict(name='sample_b64', source='greedy sampling over the vocabulary at batch-64 decode (Llama-3-8B: hidden 4096, intermediate 14336, vocab 128256, 32 q / 8 kv heads x 128)',
         grid=[64, 1, 1], values={'vocab': 128256}, counts={'logits': 8208384, 'out': 64}),
]
SPECS = [dict(
    fn=argmax_kernel,
    signature={"logits_ptr": "*fp32", "out_ptr": "*i32", "vocab": "i32", "BLOCK": "constexpr"},
    constexprs={"BLOCK": BLOCK},
    num_warps=4,
    grid=[ROWS, 1, 1],
    args=[
        dict(name="logits", buffer="f32", count=ROWS * VOCAB, init={"normal": [0, 4]}),
        dict(name="out", buffer="i32", count=ROWS, output=True),
        dict(name="vocab", value=VOCAB, type="i32", vary=[1, VOCAB],
             why="`cols < vocab` masks every load; 0 is excluded: the argmax of no logits is no index"),
    ],
    perf=PERF,
)]
