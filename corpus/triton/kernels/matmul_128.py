"""The tiled GEMM of matmul.py at BLOCK 128x128x32 with 4 warps (issue 15): at this tile size Triton 3.6
keeps the accumulator in AGPRs a0..a127 on gfx942 and reads it back with `v_accvgpr_read_b32 vN, a16` etc.,
which the emulator's operand parser once took for MIMG's `a16` flag. fp16 in, fp32 accumulate, fp16 out;
tails in M, N and K."""
import triton
import triton.language as tl


@triton.jit
def matmul_128_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

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


M, N, K = 200, 160, 96
BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 32
PERF = [{'name': 'decode_b64', 'source': 'batch-64 decode through a 4096 x 4096 projection (q/o projection; Llama-3-8B: hidden 4096, intermediate 14336, vocab 128256, 32 q / 8 kv heads x 128): M 64, N 4096, K 4096; 128 x 128 tiles, grouped by 4', 'grid': [32, 1, 1], 'values': {'M': 64, 'N': 4096, 'K': 4096, 'stride_am': 4096, 'stride_bk': 4096, 'stride_cm': 4096}, 'counts': {'a': 262144, 'b': 16777216, 'c': 262144}},
        {'name': 'prefill_4k', 'source': '4096-token prefill through the same projection: a 4096^3 GEMM (Llama-3-8B: hidden 4096, intermediate 14336, vocab 128256, 32 q / 8 kv heads x 128); 128 x 128 tiles', 'grid': [1024, 1, 1], 'values': {'M': 4096, 'N': 4096, 'K': 4096, 'stride_am': 4096, 'stride_bk': 4096, 'stride_cm': 4096}, 'counts': {'a': 16777216, 'b': 16777216, 'c': 16777216}}]  # the launches this kernel runs in practice (launch spec perf:), each with its source
SPECS = [dict(
    fn=matmul_128_kernel,
    signature={"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
               "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
               "stride_cm": "i32", "stride_cn": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
               "BLOCK_K": "constexpr", "GROUP_M": "constexpr"},
    constexprs={"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_M": BLOCK_M, "BLOCK_N": BLOCK_N,
                "BLOCK_K": BLOCK_K, "GROUP_M": 4},
    divisible_by_16=["N", "K", "stride_am", "stride_bk", "stride_cm"],
    num_warps=4,
    num_stages=2,
    grid=[triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N), 1, 1],
    args=[
        dict(name="a", buffer="f16", count=M * K, init={"normal": [0, 1]}),
        dict(name="b", buffer="f16", count=K * N, init={"normal": [0, 1]}),
        dict(name="c", buffer="f16", count=M * N, output=True),
        dict(name="M", value=M, type="i32"),
        dict(name="N", value=N, type="i32"),
        dict(name="K", value=K, type="i32"),
        dict(name="stride_am", value=K, type="i32"),
        dict(name="stride_bk", value=N, type="i32"),
        dict(name="stride_cm", value=N, type="i32"),
    ],
    perf=PERF,
)]
