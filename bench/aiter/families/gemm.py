"""bf16 GEMM (hsa/gfx942/bf16gemm): D[M,N] = A[M,K] @ B[N,K]^T in fp32 ("tn"), AITer's gemm_a16w16_asm.

Launch (csrc/py_itfs_cu/asm_gemm_a16w16.cu): grid (ceil(N/tileN), ceil(M/tileM), splitK), block 256;
KernelArgs fields 16 bytes apart: D +0, C +16, A +32, B +48, alpha +64, beta +80, stride_D0 +96,
stride_D1 +112, stride_C0 +128, stride_C1 +144, stride_A0 +160, stride_A1 +176, stride_B0 +192,
stride_B1 +208, M +224, N +240, K +256, splitk +272, is_out_b16 +288, Bias +304, add_bias +320,
semaphore +336. Strides are in bytes (row stride * element size); alpha 1, beta 0.
Reference: op_tests/test_gemm_a16w16.py (F.linear(x, weight), x: [M,K], weight: [N,K]).
"""
import numpy as np

from families.case import Case
from kernarg import Buffer, Value, from_bf16, to_bf16


def bf16_gemm_case(name, co, kernel, tile_m, tile_n, M, N, K):
    def build(rng):
        a = to_bf16(rng.standard_normal((M, K), dtype=np.float32))
        b = to_bf16(rng.standard_normal((N, K), dtype=np.float32))
        fields = {
            0: Buffer("D", "f32", count=M * N, output=True),
            32: Buffer("A", "bf16", array=a),
            48: Buffer("B", "bf16", array=b),
            64: Value("alpha", 1.0, "f32"),
            80: Value("beta", 0.0, "f32"),
            96: Value("stride_D0", N * 4),
            128: Value("stride_C0", N * 4),
            160: Value("stride_A0", K * 2),
            192: Value("stride_B0", K * 2),
            224: Value("M", M),
            240: Value("N", N),
            256: Value("K", K),
            272: Value("splitk", 1),
            288: Value("is_out_b16", 0),
        }
        grid = (-(-N // tile_n), -(-M // tile_m), 1)
        return {"grid": grid, "block": (256, 1, 1), "fields": fields, "inputs": {"a": a, "b": b}, "outputs": ["D"],
                "decode": {}}

    def reference(inp):
        a = from_bf16(inp["a"]).astype(np.float64)
        b = from_bf16(inp["b"]).astype(np.float64)
        # fp32 accumulation over K=256 of O(1) products: a few ulp of a result of size ~sqrt(K)
        return {"D": (a @ b.T, 1e-5, 1e-4)}

    return Case(name, co, kernel, f"bf16 gemm tn M={M} N={N} K={K}, fp32 out, splitK 1", build, reference)


CASES = [
    bf16_gemm_case("bf16gemm_32x64_pf3", "gfx942/bf16gemm/bf16gemm_fp32bf16_tn_32x64_pf3_splitk.co",
                   "_ZN5aiter37bf16gemm_fp32bf16_tn_32x64_pf3_splitkE", 32, 64, M=64, N=128, K=256),
    # gfx950 (MI350): the same kernel name and launch code (asm_gemm_a16w16.cu has no per-arch branch)
    bf16_gemm_case("gfx950_bf16gemm_32x64_pf3", "gfx950/bf16gemm/bf16gemm_fp32bf16_tn_32x64_pf3_splitk.co",
                   "_ZN5aiter37bf16gemm_fp32bf16_tn_32x64_pf3_splitkE", 32, 64, M=96, N=192, K=320),
]
