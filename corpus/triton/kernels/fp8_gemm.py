"""FP8 GEMM for gfx950 (issue 15): c[M, N] = a[M, K] @ b[K, N] with e4m3 (OCP FN) inputs, fp32 accumulate and
fp32 out. On gfx950 Triton 3.6 reads the K-major B operand from LDS with `ds_read_b64_tr_b8` (the LDS transpose
read) and multiplies with the f8f6f4 MFMAs. The inputs are raw bytes (launch specs have no fp8 generator):
bits 6 and 3 (the exponent's high and low bits) are cleared before the bitcast, so no input is NaN and
|x| <= 0.9375 (sums of 256 products stay small enough for a tight fp32 tolerance)."""
import triton
import triton.language as tl


@triton.jit
def fp8_gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kb in range(0, tl.cdiv(K, BLOCK_K)):
        k_rem = K - kb * BLOCK_K
        a_bits = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_rem), other=0)
        b_bits = tl.load(b_ptrs, mask=(offs_k[:, None] < k_rem) & (offs_n[None, :] < N), other=0)
        a = (a_bits & 0xB7).to(tl.float8e4nv, bitcast=True)
        b = (b_bits & 0xB7).to(tl.float8e4nv, bitcast=True)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


M, N, K = 96, 80, 256
BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 128
PERF = [{'name': 'prefill_4k', 'source': '4096-token prefill through a 4096 x 4096 projection in fp8 (8-bit weights and activations, f32 out; Llama-3-8B: hidden 4096, intermediate 14336, vocab 128256, 32 q / 8 kv heads x 128); 64 x 64 tiles', 'grid': [64, 64, 1], 'values': {'M': 4096, 'N': 4096, 'K': 4096, 'stride_am': 4096, 'stride_bk': 4096, 'stride_cm': 4096}, 'counts': {'a': 16777216, 'b': 16777216, 'c': 16777216}}]  # the launches this kernel runs in practice (launch spec perf:), each with its source
SPECS = [dict(
    fn=fp8_gemm_kernel,
    signature={"a_ptr": "*u8", "b_ptr": "*u8", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
               "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
               "stride_cm": "i32", "stride_cn": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
               "BLOCK_K": "constexpr"},
    constexprs={"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_M": BLOCK_M, "BLOCK_N": BLOCK_N,
                "BLOCK_K": BLOCK_K},
    divisible_by_16=["N", "K", "stride_am", "stride_bk", "stride_cm"],
    num_warps=4,
    num_stages=2,
    archs=["gfx950"],
    optional_archs=[],
    grid=[triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), 1],
    args=[
        dict(name="a", buffer="u8", count=M * K, init={"ints": [0, 255]}),
        dict(name="b", buffer="u8", count=K * N, init={"ints": [0, 255]}),
        dict(name="c", buffer="f32", count=M * N, output=True),
        dict(name="M", value=M, type="i32", vary=[0, M], why="loads and stores mask `offs_m < M`"),
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
    perf=PERF,
)]
