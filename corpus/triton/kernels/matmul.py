"""Tiled GEMM with tl.dot (MFMA on CDNA): c[M, N] = a[M, K] @ b[K, N], fp16 in, fp32 accumulate, fp16 out.
Grouped program ordering as in the Triton tutorial; M, N and K all have masked tails (body: _tiled_gemm.py)."""
import triton
import triton.language as tl
from _tiled_gemm import matmul_spec, perf_launches, tiled_matmul


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    tiled_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                 BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M)


SPECS = [matmul_spec(matmul_kernel, M=100, N=80, K=144, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=4,
                     perf=perf_launches(64, 64))]
