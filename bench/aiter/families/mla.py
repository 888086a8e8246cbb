"""MLA decode, stage 1 (hsa/gfx942/mla), AITer's mla_decode_stage1_asm_fwd, non-persistent, bf16 Q and KV.

Launch (csrc/py_itfs_cu/asm_mla.cu): grid (ceil(max_seqlen_q * gqa / sub_Q), batch, kv_split), block 256;
sub_Q 16 for this kernel. KernelArgs, 16 bytes a field: R (split outputs, fp32 [tokens, splits, heads,
512]), LSE ([tokens, splits, heads]), Q [tokens, heads, 576], KV [pages, page_size, 1, 576] (V = the first
512 columns), LTP kv_indptr, LTD kv_page_indices, LTL kv_last_page_lens, scalar = 1/sqrt(576), s_MQA =
gqa * max_seqlen_q, s_kv_split, s_Q_Bs = Q.stride(0) * 2 * max_seqlen_q bytes, s_Bs = KV.stride(0) * 2
bytes (one page), s_log2_plen, QTP qo_indptr, STP num_kv_splits_indptr (aiter/mla.py get_meta_param:
arange(0, (bs+1) * splits, splits)), out_16_nosplit = (splits == 1), s_cp_world_size 1.
Reference: op_tests/test_mla.py (softmax(q k^T * scale) v over the sequence's pages; one kv head).
"""
import math

import numpy as np

from families.attention import softmax_attention
from families.case import Case
from kernarg import Buffer, Value, from_bf16, struct16, to_bf16

ARGS = struct16("R", "LSE", "Q", "KV", "LTP", "LTD", "LTL", "scalar", "s_MQA", "s_kv_split", "s_Q_Bs", "s_Bs",
                "s_log2_plen", "QTP", "STP", "RP", "QSCALE", "KVSCALE", "out_16_nosplit", "LSEP", "GKVTP",
                "s_cp_world_size", "s_cp_rank")
DQK, DV = 576, 512


def mla_decode_bf16_case(name, co, kernel, heads, sub_q, kv_lens):
    batch, splits, page = len(kv_lens), 1, 1
    pages = sum(kv_lens)

    def build(rng):
        q = to_bf16(rng.uniform(-1, 1, (batch, heads, DQK)).astype(np.float32))
        kv = to_bf16(rng.uniform(-1, 1, (pages, page, 1, DQK)).astype(np.float32))
        indptr = np.concatenate([[0], np.cumsum(kv_lens)]).astype(np.int32)
        indices = rng.permutation(pages).astype(np.int32)
        f = {
            ARGS["R"]: Buffer("R", "f32", count=batch * splits * heads * DV, output=True),
            ARGS["LSE"]: Buffer("LSE", "f32", count=batch * splits * heads, output=True),
            ARGS["Q"]: Buffer("Q", "bf16", array=q),
            ARGS["KV"]: Buffer("KV", "bf16", array=kv),
            ARGS["LTP"]: Buffer("kv_indptr", "i32", array=indptr),
            ARGS["LTD"]: Buffer("kv_indices", "i32", array=indices),
            ARGS["LTL"]: Buffer("kv_last_page_lens", "i32", array=np.full(batch, page, np.int32)),
            ARGS["scalar"]: Value("scalar", repr(float(np.float32(1 / math.sqrt(DQK)))), "f32"),
            ARGS["s_MQA"]: Value("s_MQA", heads),
            ARGS["s_kv_split"]: Value("s_kv_split", splits),
            ARGS["s_Q_Bs"]: Value("s_Q_Bs", heads * DQK * 2),
            ARGS["s_Bs"]: Value("s_Bs", page * DQK * 2),
            ARGS["s_log2_plen"]: Value("s_log2_plen", int(math.log2(page))),
            ARGS["QTP"]: Buffer("qo_indptr", "i32", array=np.arange(batch + 1, dtype=np.int32)),
            ARGS["STP"]: Buffer("kv_splits_indptr", "i32", array=np.arange(0, (batch + 1) * splits, splits, dtype=np.int32)),
            ARGS["out_16_nosplit"]: Value("out_16_nosplit", 1 if splits == 1 else 0),
            ARGS["s_cp_world_size"]: Value("s_cp_world_size", 1),
        }
        grid = (-(-heads // sub_q), batch, splits)
        return {"grid": grid, "block": (256, 1, 1), "fields": f,
                "inputs": {"q": q, "kv": kv, "indptr": indptr, "indices": indices}, "outputs": ["R", "LSE"], "decode": {}}

    def reference(inp):
        q, kv = from_bf16(inp["q"]).astype(np.float64), from_bf16(inp["kv"]).astype(np.float64)
        out = np.zeros((batch, heads, DV))
        lse = np.zeros((batch, heads))
        for b in range(batch):
            sel = inp["indices"][inp["indptr"][b]:inp["indptr"][b + 1]]
            k = kv[sel, 0]  # [len, 1, 576]
            out[b] = softmax_attention(q[b][None], k, k[..., :DV], 1 / math.sqrt(DQK))[0]
            s = np.einsum("hd,kd->hk", q[b], k[:, 0]) / math.sqrt(DQK)
            lse[b] = np.log(np.exp(s - s.max(-1, keepdims=True)).sum(-1)) + s.max(-1)
        # fp32 split output with bf16 P: op_tests' checkAllclose defaults
        return {"R": (out, 1e-2, 1e-2), "LSE": (lse, 1e-2, 1e-2)}

    return Case(name, co, kernel, f"mla decode stage 1, bf16, heads {heads}, kv lens {kv_lens}, 1 split, page 1",
                build, reference)


CASES = [
    mla_decode_bf16_case("mla_dec_bf16_qh16", "gfx942/mla/mla_dec_stage1_bf16_a16w16_subQ16_mqa16.co",
                         "_ZN5aiter39mla_dec_stage1_bf16_a16w16_subQ16_mqa16E", heads=16, sub_q=16, kv_lens=[40, 17]),
    # gfx950 (MI350): the same kernel name and launch code (hsa/gfx950/mla/mla_asm.csv)
    mla_decode_bf16_case("gfx950_mla_dec_bf16_qh16", "gfx950/mla/mla_dec_stage1_bf16_a16w16_subQ16_mqa16.co",
                         "_ZN5aiter39mla_dec_stage1_bf16_a16w16_subQ16_mqa16E", heads=16, sub_q=16, kv_lens=[70, 33]),
]
