"""Paged attention decode (hsa/gfx942/pa), AITer's pa_fwd_asm, non-persistent KernelArgs.

Launch (csrc/py_itfs_cu/asm_pa.cu, pa_fwd): grid (num_kv_heads, batch, 1), block 256 (4 waves).
KernelArgs, 16 bytes a field: O, Q, K, V, BT (block tables), CL (context lens), KQ, VQ (per-token K/V
scales), sclg2e = log2(e)/sqrt(head_size), mblk = block_tables.stride(0), kv_nheads, Qs = Q.stride(0)
bytes, Bs = K.stride(0) bytes, KVs = K.stride(1) bytes, mtp = max_qlen - 1, GQA, QTP.
Layouts (op_tests/test_pa.py): Q [seqs, heads, 128] bf16; K [blocks, kv_heads, 128/x, block_size, x]
with x = 16 bytes / element; V shuffled by asm_V_shuffle to [blocks, kv_heads, block_size/x, 128, x];
per-token scales [blocks, kv_heads, block_size] fp32 (pertoken_quant_kvcache_symm's k_scale_asm).
Reference: ref_masked_attention with K and V dequantised (fp8 * scale), softmax scale 1/sqrt(128); and a
model of the kernel's own numerics: fp8 MFMAs need Q and P in fp8, each row scaled so its max is 240.
"""
import math

import numpy as np

from families.attention import softmax_attention
from families.case import Case
from families.fp8 import decode_e4m3fn, decode_e4m3fnuz, quantize_rowmax, random_e4m3fnuz
from kernarg import Buffer, Value, from_bf16, struct16, to_bf16

ARGS = struct16("O", "Q", "K", "V", "BT", "CL", "KQ", "VQ", "sclg2e", "mblk", "kv_nheads", "Qs", "Bs", "KVs",
                "mtp", "GQA", "QTP")
D = 128


def pa_fp8_pertoken_case(name, co, kernel, gqa, block_size, batch, kv_heads, ctx_lens, qlen=1, qo_indptr=False,
                         ocp_fp8=False):
    """ocp_fp8: the KV bytes are OCP e4m3fn (gfx950's torch float8_e4m3fn), not e4m3fnuz (gfx942)."""
    decode = decode_e4m3fn if ocp_fp8 else decode_e4m3fnuz
    heads = gqa * kv_heads
    x = 16  # fp8: 16 bytes / 1
    blocks_per_seq = max(-(-c // block_size) for c in ctx_lens)
    num_blocks = blocks_per_seq * batch

    def build(rng):
        q = to_bf16(rng.uniform(-1, 1, (batch * qlen, heads, D)).astype(np.float32))
        # token-major caches first ([blocks, kv_heads, block_size, D]), then AITer's layouts
        k_tok = random_e4m3fnuz(rng, (num_blocks, kv_heads, block_size, D))
        v_tok = random_e4m3fnuz(rng, (num_blocks, kv_heads, block_size, D))
        k_cache = k_tok.reshape(num_blocks, kv_heads, block_size, D // x, x).transpose(0, 1, 3, 2, 4).copy()
        v_cache = v_tok.reshape(num_blocks, kv_heads, block_size // x, x, D).transpose(0, 1, 2, 4, 3).copy()
        k_scale = rng.uniform(0.05, 0.5, (num_blocks, kv_heads, block_size)).astype(np.float32)
        v_scale = rng.uniform(0.05, 0.5, (num_blocks, kv_heads, block_size)).astype(np.float32)
        bt = rng.permutation(num_blocks).astype(np.int32).reshape(batch, blocks_per_seq)
        cl = np.array(ctx_lens, dtype=np.int32)
        f = {
            ARGS["O"]: Buffer("O", "bf16", count=batch * qlen * heads * D, output=True),
            ARGS["Q"]: Buffer("Q", "bf16", array=q),
            ARGS["K"]: Buffer("K", "u8", array=k_cache),
            ARGS["V"]: Buffer("V", "u8", array=v_cache),
            ARGS["BT"]: Buffer("BT", "i32", array=bt),
            ARGS["CL"]: Buffer("CL", "i32", array=cl),
            ARGS["KQ"]: Buffer("KQ", "f32", array=k_scale),
            ARGS["VQ"]: Buffer("VQ", "f32", array=v_scale),
            ARGS["sclg2e"]: Value("sclg2e", repr(float(np.float32(math.log2(math.e) / math.sqrt(D)))), "f32"),
            ARGS["mblk"]: Value("mblk", blocks_per_seq),
            ARGS["kv_nheads"]: Value("kv_nheads", kv_heads),
            ARGS["Qs"]: Value("Qs", heads * D * 2),
            ARGS["Bs"]: Value("Bs", kv_heads * D * block_size),
            ARGS["KVs"]: Value("KVs", D * block_size),
            ARGS["mtp"]: Value("mtp", qlen - 1),
            ARGS["GQA"]: Value("GQA", gqa),
        }
        if qo_indptr:  # the MTP objects always read it (ptr_QTP = qo_indptr: each sequence's first query row)
            f[ARGS["QTP"]] = Buffer("qo_indptr", "i32", array=np.arange(batch + 1, dtype=np.int32) * qlen)
        inputs = {"q": q, "k_tok": k_tok, "v_tok": v_tok, "k_scale": k_scale, "v_scale": v_scale, "bt": bt, "cl": cl}
        return {"grid": (kv_heads, batch, 1), "block": (256, 1, 1), "fields": f, "inputs": inputs, "outputs": ["O"],
                "decode": {"O": from_bf16}}

    def reference(inp):
        q = from_bf16(inp["q"]).astype(np.float64)
        kq, vq = decode(inp["k_tok"]), decode(inp["v_tok"])
        ks, vs = inp["k_scale"], inp["v_scale"]
        exact = np.zeros((batch * qlen, heads, D))
        model = np.zeros((batch * qlen, heads, D))
        for row in range(batch * qlen):
            b, i = divmod(row, qlen)
            seen = int(inp["cl"][b]) - (qlen - 1 - i)  # causal among the qlen new tokens
            tok = [(int(inp["bt"][b, t // block_size]), t % block_size) for t in range(seen)]
            kb = np.stack([kq[blk, :, s] for blk, s in tok])  # [ctx, kv_heads, D] fp8 values
            vb = np.stack([vq[blk, :, s] for blk, s in tok])
            kbs = np.stack([ks[blk, :, s] for blk, s in tok])  # [ctx, kv_heads]
            vbs = np.stack([vs[blk, :, s] for blk, s in tok])
            exact[row] = softmax_attention(q[row][None], kb * kbs[..., None], vb * vbs[..., None], 1 / math.sqrt(D))[0]
            for h in range(heads):
                kvh = h // gqa
                # the kernel's numerics: Q row and P row quantised to fp8 with their max at 240 (fp8 MFMAs)
                qq = quantize_rowmax(q[row, h][None], ocp_fp8)[0]
                s = (kb[:, kvh] @ qq) * kbs[:, kvh] / math.sqrt(D)
                p = np.exp(s - s.max())
                pv = quantize_rowmax((p * vbs[:, kvh])[None], ocp_fp8)[0]
                model[row, h] = (pv @ vb[:, kvh]) / p.sum()
        # The operator, with op_tests' checkAllclose defaults (rtol = atol = 1e-2); and the kernel's fp8
        # numerics within bf16 output rounding plus fp32 accumulation.
        return {"O": (exact, 1e-2, 1e-2), "O@fp8 Q/P model": (model, 1e-2, 1e-3)}

    return Case(name, co, kernel, f"pa decode bf16 Q, fp8 per-token KV, gqa {gqa}, block {block_size}, "
                f"batch {batch}, kv_heads {kv_heads}, ctx {ctx_lens}, qlen {qlen}", build, reference)


CASES = [
    pa_fp8_pertoken_case("pa_fp8_gqa10_qlen1", "gfx942/pa/pa_bf16_pertokenFp8_gqa10_1tg_4w_qlen1_msk1.co",
                         "_ZN5aiter43pa_bf16_pertokenFp8_gqa10_1tg_4w_qlen1_msk1E", gqa=10, block_size=1024,
                         batch=2, kv_heads=1, ctx_lens=[200, 77]),
    # a context over two 1024-token blocks, two kv heads
    pa_fp8_pertoken_case("pa_fp8_gqa10_qlen1_2blk", "gfx942/pa/pa_bf16_pertokenFp8_gqa10_1tg_4w_qlen1_msk1.co",
                         "_ZN5aiter43pa_bf16_pertokenFp8_gqa10_1tg_4w_qlen1_msk1E", gqa=10, block_size=1024,
                         batch=1, kv_heads=2, ctx_lens=[1100]),
    # MTP: 2 query tokens per sequence, causal among them (cfg Mtp 12 = qlen 2 + 10, Msk 1)
    pa_fp8_pertoken_case("pa_fp8_gqa10_qlen2", "gfx942/pa/pa_bf16_pertokenFp8_gqa10_1tg_4w_qlen2_msk1.co",
                         "_ZN5aiter43pa_bf16_pertokenFp8_gqa10_1tg_4w_qlen2_msk1E", gqa=10, block_size=1024,
                         batch=2, kv_heads=1, ctx_lens=[200, 77], qlen=2),
    pa_fp8_pertoken_case("pa_fp8_gqa10_qlen4", "gfx942/pa/pa_bf16_pertokenFp8_gqa10_1tg_4w_qlen4_msk1.co",
                         "_ZN5aiter43pa_bf16_pertokenFp8_gqa10_1tg_4w_qlen4_msk1E", gqa=10, block_size=1024,
                         batch=2, kv_heads=1, ctx_lens=[130, 9], qlen=4),
]
# gfx950 (MI350): the per-token fp8 objects there use 16-token blocks (hsa/gfx950/pa/pa_asm.csv: blkSz 16, Mtp 1)
CASES += [
    pa_fp8_pertoken_case("gfx950_pa_fp8_gqa8_qlen1", "gfx950/pa/pa_bf16_pertokenFp8_gqa8_1tg_4w_mtp_msk1.co",
                         "_ZN5aiter40pa_bf16_pertokenFp8_gqa8_1tg_4w_mtp_msk1E", gqa=8, block_size=16,
                         batch=2, kv_heads=2, ctx_lens=[200, 77], qo_indptr=True, ocp_fp8=True),
    pa_fp8_pertoken_case("gfx950_pa_fp8_gqa8_qlen2", "gfx950/pa/pa_bf16_pertokenFp8_gqa8_1tg_4w_mtp_msk1.co",
                         "_ZN5aiter40pa_bf16_pertokenFp8_gqa8_1tg_4w_mtp_msk1E", gqa=8, block_size=16,
                         batch=2, kv_heads=1, ctx_lens=[130, 9], qlen=2, qo_indptr=True, ocp_fp8=True),
]
