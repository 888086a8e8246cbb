"""Token embedding lookup: out[t, :] = table[ids[t], :] (fp16, i32 ids); one program per token, 1 wave."""
import triton
import triton.language as tl


@triton.jit
def embedding_kernel(ids_ptr, table_ptr, out_ptr, dim, BLOCK: tl.constexpr):
    tok = tl.program_id(0).to(tl.int64)
    token_id = tl.load(ids_ptr + tok).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < dim
    row = tl.load(table_ptr + token_id * dim + cols, mask=mask)
    tl.store(out_ptr + tok * dim + cols, row, mask=mask)


T = 61
VOCAB = 500
DIM = 96
BLOCK = 128
PERF = [  # the launches these kernels run in practice (launch spec perf:), each with its source
    dict(name='prefill_4k', source="4096-token prefill embedding lookup; dim 128 (the binary's BLOCK = 128 bounds it); token ids from the spec's init (500-row table)",
         grid=[4096, 1, 1], values={'dim': 128}, counts={'ids': 4096, 'table': 64000, 'out': 524288}),
]
SPECS = [dict(
    fn=embedding_kernel,
    signature={"ids_ptr": "*i32", "table_ptr": "*fp16", "out_ptr": "*fp16", "dim": "i32", "BLOCK": "constexpr"},
    constexprs={"BLOCK": BLOCK},
    divisible_by_16=["dim"],
    num_warps=1,
    grid=[T, 1, 1],
    args=[
        dict(name="ids", buffer="i32", count=T, init={"ints": [0, VOCAB - 1]}),
        dict(name="table", buffer="f16", count=VOCAB * DIM, init={"normal": [0, 1]}),
        dict(name="out", buffer="f16", count=T * DIM, output=True),
        dict(name="dim", value=DIM, type="i32",
             why='compiled with tt.divisibility 16 (divisible_by_16): the binary may assume a multiple of 16, which a range cannot say'),
    ],
    perf=PERF,
)]
