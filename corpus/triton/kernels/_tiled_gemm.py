"""The grouped, masked tiled GEMM that matmul.py and matmul_128.py compile at two tile sizes (a module of
@triton.jit helpers, no SPECS: build.py skips files whose name starts with `_`). Triton inlines these
helpers, so each kernel's code is what one body would give."""
import triton
import triton.language as tl


@triton.jit
def grouped_tile(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    """Program id -> (tile row, tile column), grouped by GROUP_M rows as in the Triton tutorial."""
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def tiled_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """c[M, N] = a[M, K] @ b[K, N]: fp32 accumulation with tl.dot, masked tails in M, N and K."""
    pid_m, pid_n = grouped_tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kb in range(0, tl.cdiv(K, BLOCK_K)):
        k_rem = K - kb * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_rem), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_rem) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


# The shapes these GEMMs run in practice (launch spec perf:), each with its source.
LLAMA3_8B = 'Llama-3-8B: hidden 4096, intermediate 14336, vocab 128256, 32 q / 8 kv heads x 128'
PROJECTION_4096 = {'stride_am': 4096, 'stride_bk': 4096, 'stride_cm': 4096}


def perf_launches(block_m, block_n, decode_note='', prefill_note=''):
    """The batch-64 decode and 4096-token prefill launches through a 4096 x 4096 projection, for one tile size."""
    def grid(m, n):
        return [triton.cdiv(m, block_m) * triton.cdiv(n, block_n), 1, 1]
    return [
        dict(name='decode_b64', source=f'batch-64 decode through a 4096 x 4096 projection (q/o projection; {LLAMA3_8B}): M 64, N 4096, K 4096{decode_note}',
             grid=grid(64, 4096), values={'M': 64, 'N': 4096, 'K': 4096, **PROJECTION_4096},
             counts={'a': 64 * 4096, 'b': 4096 * 4096, 'c': 64 * 4096}),
        dict(name='prefill_4k', source=f'4096-token prefill through the same projection: a 4096^3 GEMM ({LLAMA3_8B}){prefill_note}',
             grid=grid(4096, 4096), values={'M': 4096, 'N': 4096, 'K': 4096, **PROJECTION_4096},
             counts={'a': 4096 * 4096, 'b': 4096 * 4096, 'c': 4096 * 4096}),
    ]


def matmul_spec(fn, M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, perf):
    """The launch SPECS entry of a kernel that calls tiled_matmul (same parameters, fp16 in and out)."""
    return dict(
        fn=fn,
        # Unit strides are constexpr and the others divisible by 16, as Triton's launcher specializes them.
        signature={"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                   "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
                   "stride_cm": "i32", "stride_cn": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
                   "BLOCK_K": "constexpr", "GROUP_M": "constexpr"},
        constexprs={"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_M": BLOCK_M, "BLOCK_N": BLOCK_N,
                    "BLOCK_K": BLOCK_K, "GROUP_M": GROUP_M},
        divisible_by_16=["N", "K", "stride_am", "stride_bk", "stride_cm"],
        num_warps=4,
        num_stages=2,
        grid=[triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N), 1, 1],
        args=[
            dict(name="a", buffer="f16", count=M * K, init={"normal": [0, 1]}),
            dict(name="b", buffer="f16", count=K * N, init={"normal": [0, 1]}),
            dict(name="c", buffer="f16", count=M * N, output=True),
            dict(name="M", value=M, type="i32", vary=[1, M],
                 why="loads and stores mask `offs_m < M`; 0 is excluded: the grouped tile mapping then divides by a zero group size"),
            dict(name="N", value=N, type="i32",
             why='compiled with tt.divisibility 16 (divisible_by_16): the binary may assume a multiple of 16, which a range cannot say'),
            dict(name="K", value=K, type="i32",
             why='compiled with tt.divisibility 16 (divisible_by_16): the binary may assume a multiple of 16, which a range cannot say'),
            dict(name="stride_am", value=K, type="i32",
             why='a row stride, compiled with tt.divisibility 16 (divisible_by_16): the binary may assume a multiple of 16, which a range cannot say'),
            dict(name="stride_bk", value=N, type="i32",
             why='a row stride, compiled with tt.divisibility 16 (divisible_by_16): the binary may assume a multiple of 16, which a range cannot say'),
            dict(name="stride_cm", value=N, type="i32",
             why='a row stride, compiled with tt.divisibility 16 (divisible_by_16): the binary may assume a multiple of 16, which a range cannot say'),
        ],
        perf=perf,
    )
