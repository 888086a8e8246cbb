"""Flash attention forward v3 (hsa/gfx942/fmha_v3_fwd/MI300, hsa/gfx950/fmha_v3_fwd), AITer's fmha_fwd_v3 (batch mode, no mask, no LSE).

Launch (csrc/cpp_itfs/mha_fwd.cu: init_fmha_fwd_v3_args, get_grid_dim): grid (ceil(seqlen_q / ts_qo), nhead_q,
batch), block 512 (256 for hd192x128); ts_qo 256 (hsa/gfx942/fmha_v3_fwd/fmha_fwd.csv). fmha_fwd_v3_args
(csrc/include/mha_fwd.h), 16 bytes a field. Strides are in bytes: s_Seqs = q.stride(1), s_Ts = ts_qo *
s_Seqs, s_Hs = q.stride(2), s_Bs = q.stride(0) (x2 for bf16), likewise for k, v, o; s_gqa = nhead_q /
nhead_k; s_opt (tune_opt) 5; scalar = softmax scale 1/sqrt(d). Layout bshd (q [b, s, h, d]).
Reference: op_tests/test_mha.py (attention_ref: softmax(q k^T * scale) v).
"""
import math

import numpy as np

from families.attention import softmax_attention
from families.case import Case
from kernarg import Buffer, Value, from_bf16, struct16, to_bf16

ARGS = struct16("o", "q", "k", "v", "lse", "scalar", "s_seq_len", "s_Seqs", "s_Ts", "s_Hs", "s_Bs", "s_gqa",
                "s_k_Seqs", "s_k_Hs", "s_k_Bs", "s_opt", "s_lse", "s_kv_seq_len", "s_qk_head_dim", "s_v_head_dim",
                "s_q_head_num", "s_v_Seqs", "s_v_Hs", "s_v_Bs", "s_o_Seqs", "s_o_Hs", "s_o_Bs", "qseq", "kseq",
                "s_lse_Hs", "qseq_padding", "kseq_padding", "q_descale", "k_descale", "v_descale")


# K and V are streamed in tiles of ts_kv rows (fmha_fwd.csv: 32 on gfx942, 64 on gfx950) with the tile step in
# the SGPR offset (s60/s35 += ts_kv * row stride) against a V# of num_records = seqlen_k * row stride: the prefetch
# after the last tile and the rows of a partial tile past seqlen_k read 0 only because soffset counts in the
# range check (docs/emulator.md, "AITer check"). No guard zones are given: with the emulator's earlier rule
# (soffset unchecked) this spec faulted, and with guards the tail case read NaN there into the output.
def fmha_fwd_bf16_case(name, co, kernel, batch, heads, kv_heads, sq, sk, d=128, ts_qo=256, causal=False):
    """causal: a `_causal` object (mask_type 2, bottom-right aligned); the launch then merges the head and tail
    q tiles into one workgroup (get_grid_dim: tg_div 2) and tune_opt drops by 2 unless nhead_q % 8 == 0."""
    tune_opt = 5 - (2 if causal and heads % 8 else 0)
    tg_div = 2 if causal else 1
    def build(rng):
        q = to_bf16(rng.uniform(-1, 1, (batch, sq, heads, d)).astype(np.float32))
        k = to_bf16(rng.uniform(-1, 1, (batch, sk, kv_heads, d)).astype(np.float32))
        v = to_bf16(rng.uniform(-1, 1, (batch, sk, kv_heads, d)).astype(np.float32))
        V = lambda n, x: Value(n, x)  # noqa: E731
        f = {
            ARGS["o"]: Buffer("o", "bf16", count=batch * sq * heads * d, output=True),
            ARGS["q"]: Buffer("q", "bf16", array=q),
            ARGS["k"]: Buffer("k", "bf16", array=k),
            ARGS["v"]: Buffer("v", "bf16", array=v),
            ARGS["scalar"]: Value("scalar", repr(float(np.float32(1 / math.sqrt(d)))), "f32"),
            ARGS["s_seq_len"]: V("s_seq_len", sq),
            ARGS["s_Seqs"]: V("s_Seqs", heads * d * 2), ARGS["s_Ts"]: V("s_Ts", ts_qo * heads * d * 2),
            ARGS["s_Hs"]: V("s_Hs", d * 2), ARGS["s_Bs"]: V("s_Bs", sq * heads * d * 2),
            ARGS["s_gqa"]: V("s_gqa", heads // kv_heads),
            ARGS["s_k_Seqs"]: V("s_k_Seqs", kv_heads * d * 2), ARGS["s_k_Hs"]: V("s_k_Hs", d * 2),
            ARGS["s_k_Bs"]: V("s_k_Bs", sk * kv_heads * d * 2),
            ARGS["s_opt"]: V("s_opt", tune_opt), ARGS["s_lse"]: V("s_lse", 0),
            ARGS["s_kv_seq_len"]: V("s_kv_seq_len", sk), ARGS["s_qk_head_dim"]: V("s_qk_head_dim", d),
            ARGS["s_v_head_dim"]: V("s_v_head_dim", d), ARGS["s_q_head_num"]: V("s_q_head_num", heads),
            ARGS["s_v_Seqs"]: V("s_v_Seqs", kv_heads * d * 2), ARGS["s_v_Hs"]: V("s_v_Hs", d * 2),
            ARGS["s_v_Bs"]: V("s_v_Bs", sk * kv_heads * d * 2),
            ARGS["s_o_Seqs"]: V("s_o_Seqs", heads * d * 2), ARGS["s_o_Hs"]: V("s_o_Hs", d * 2),
            ARGS["s_o_Bs"]: V("s_o_Bs", sq * heads * d * 2),
        }
        grid = ((-(-sq // ts_qo) + tg_div - 1) // tg_div, heads, batch)
        return {"grid": grid, "block": (512, 1, 1), "fields": f, "inputs": {"q": q, "k": k, "v": v},
                "outputs": ["o"], "decode": {"o": from_bf16}}

    def reference(inp):
        q, k, v = (from_bf16(inp[n]).astype(np.float64) for n in "qkv")
        out = np.stack([softmax_attention(q[b], k[b], v[b], 1 / math.sqrt(d), causal=causal) for b in range(batch)])
        # bf16 P for the PV MFMA and a bf16 output: op_tests' checkAllclose defaults
        return {"o": (out, 1e-2, 1e-2)}

    return Case(name, co, kernel, f"fmha fwd bf16 hd{d}{' causal' if causal else ''}, batch {batch}, heads {heads}/{kv_heads}, "
                f"sq {sq}, sk {sk}",
                build, reference)


CASES = [
    fmha_fwd_bf16_case("fmha_fwd_hd128_bf16", "gfx942/fmha_v3_fwd/MI300/fwd_hd128_bf16_rtne.co",
                       "_ZN5aiter24fmha_fwd_hd128_bf16_rtneE", batch=1, heads=1, kv_heads=1, sq=256, sk=128),
    # GQA, a partial q tile (300 = 256 + 44) and a partial kv tile (200 = 6 x 32 + 8)
    fmha_fwd_bf16_case("fmha_fwd_hd128_bf16_gqa_tail", "gfx942/fmha_v3_fwd/MI300/fwd_hd128_bf16_rtne.co",
                       "_ZN5aiter24fmha_fwd_hd128_bf16_rtneE", batch=2, heads=4, kv_heads=2, sq=300, sk=200),
    # causal: 3 q tiles (two workgroups in x: head + tail merged), sk > sq (bottom-right aligned)
    fmha_fwd_bf16_case("fmha_fwd_hd128_bf16_causal", "gfx942/fmha_v3_fwd/MI300/fwd_hd128_bf16_causal_rtne.co",
                       "_ZN5aiter31fmha_fwd_hd128_bf16_causal_rtneE", batch=1, heads=2, kv_heads=1, sq=700, sk=760,
                       causal=True),
    # gfx950 (MI350): same argument struct and grid (mha_fwd.cu), ts_kv 64 (hsa/gfx950/fmha_v3_fwd/fmha_fwd.csv)
    fmha_fwd_bf16_case("gfx950_fmha_fwd_hd128_bf16", "gfx950/fmha_v3_fwd/fwd_hd128_bf16.co",
                       "_ZN5aiter19fmha_fwd_hd128_bf16E", batch=2, heads=4, kv_heads=2, sq=300, sk=200),
]
