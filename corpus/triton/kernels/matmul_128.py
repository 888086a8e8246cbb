"""The tiled GEMM of matmul.py at BLOCK 128x128x32 with 4 warps (issue 15): at this tile size Triton 3.6
keeps the accumulator in AGPRs a0..a127 on gfx942 and reads it back with `v_accvgpr_read_b32 vN, a16` etc.,
which the emulator's operand parser once took for MIMG's `a16` flag. fp16 in, fp32 accumulate, fp16 out;
tails in M, N and K (body: _tiled_gemm.py)."""
import triton
import triton.language as tl
from _tiled_gemm import matmul_spec, perf_launches, tiled_matmul


@triton.jit
def matmul_128_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    tiled_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                 BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M)


SPECS = [matmul_spec(matmul_128_kernel, M=200, N=160, K=96, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, GROUP_M=4,
                     perf=perf_launches(128, 128, decode_note='; 128 x 128 tiles, grouped by 4',
                                        prefill_note='; 128 x 128 tiles'))]
