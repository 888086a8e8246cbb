"""Reference attention shared by the pa / mla / fmha cases (op_tests' ref_masked_attention, in float64)."""
import numpy as np


def softmax_attention(q, k, v, scale, causal=False, kv_heads=None):
    """q [Sq, Hq, D], k [Sk, Hk, D], v [Sk, Hk, Dv] -> [Sq, Hq, Dv]; query head h reads kv head h // (Hq/Hk)."""
    hq, hk = q.shape[1], k.shape[1]
    g = hq // hk
    kk = np.repeat(k, g, axis=1)
    vv = np.repeat(v, g, axis=1)
    s = scale * np.einsum("qhd,khd->hqk", q, kk)
    if causal:  # bottom-right aligned, as AITer's mask for seqlen_q != seqlen_k
        sq, sk = q.shape[0], k.shape[0]
        mask = np.arange(sk)[None, :] > np.arange(sq)[:, None] + (sk - sq)
        s = np.where(mask[None], -np.inf, s)
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    return np.einsum("hqk,khd->qhd", p, vv)
