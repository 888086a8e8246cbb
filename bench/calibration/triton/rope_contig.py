"""The RoPE calibration rows' Triton kernel (docs/timing.md, "Calibration"; calibration_bench's RoPE rows).

sglang PR #28783 timed `apply_rotary_emb_contig_kernel` on MI300X. Its source is not in the notes; what this
kernel follows is the PR's description of it: one program per (BLOCK_M tokens, head), the rope slice loaded
as a contiguous [BLOCK_M, RD] tile, the GPT-J (adjacent-pair) rotation done with tl.reshape + tl.flip, cos
and sin taken from the interleaved fp32 table (cos = fr[2 (d // 2)], sin = fr[2 (d // 2) + 1]), forward or
inverse, in place. The comment's launch: rope_dim 64, 16 heads, num_warps 4, BLOCK_M 32 or 8, bf16.
Written for this project from that description (no code copied); compiled by build.py in this folder.
"""
import triton
import triton.language as tl


@triton.jit
def rope_contig_kernel(x_ptr, fr_ptr, n_tokens, stride_token, stride_head,
                       BLOCK_M: tl.constexpr, RD: tl.constexpr, IS_INVERSE: tl.constexpr):
    pid_m = tl.program_id(0)
    head = tl.program_id(1)
    tok = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, RD)
    mask = (tok < n_tokens)[:, None]
    ptrs = x_ptr + tok[:, None] * stride_token + head * stride_head + d[None, :]
    x = tl.load(ptrs, mask=mask, other=0.0).to(tl.float32)
    pair = (d // 2) * 2
    cos = tl.load(fr_ptr + tok[:, None] * RD + pair[None, :], mask=mask, other=0.0)
    sin = tl.load(fr_ptr + tok[:, None] * RD + pair[None, :] + 1, mask=mask, other=0.0)
    # The partner of element d is d ^ 1: flip each adjacent pair.
    partner = tl.reshape(tl.flip(tl.reshape(x, [BLOCK_M, RD // 2, 2]), 2), [BLOCK_M, RD])
    # forward: (x0 cos - x1 sin, x1 cos + x0 sin); inverse: the conjugate rotation.
    sign = tl.where(d % 2 == 0, -1.0, 1.0)
    if IS_INVERSE:
        sign = -sign
    out = x * cos + sign[None, :] * partner * sin
    tl.store(ptrs, out.to(x_ptr.dtype.element_ty), mask=mask)


# The variants the bench models: the comment's two tile heights, inverse (the attention-output rope it tuned).
VARIANTS = [dict(name=f"rope_contig_m{m}", constexprs={"BLOCK_M": m, "RD": 64, "IS_INVERSE": True}, num_warps=4)
            for m in (32, 8)]
# Triton's launcher specializes pointers (16-byte aligned) and integer arguments divisible by 16; every
# integer of the measured launch is (tokens 8192 / 16384, strides 1024 and 64).
SIGNATURE = {"x_ptr": "*bf16", "fr_ptr": "*fp32", "n_tokens": "i32", "stride_token": "i32", "stride_head": "i32",
             "BLOCK_M": "constexpr", "RD": "constexpr", "IS_INVERSE": "constexpr"}
DIVISIBLE_BY_16 = ["n_tokens", "stride_token", "stride_head"]
