#!/usr/bin/python3
"""Checks corpus/triton/reference.py, the oracle of the Triton corpus, against hand-computed cases.

Every expected value below is worked out by hand (shown in the comments), not by a second implementation of
the same formula. Also checks that the reference covers the manifest and that TOLERANCE names real buffers.
Run with Debian's python3 (NumPy, PyYAML): `/usr/bin/python3 tests/triton/test_reference.py`.
"""
import json
import math
import sys
import unittest
from pathlib import Path

import numpy as np
import yaml

sys.dont_write_bytecode = True  # keep corpus/triton free of __pycache__

CORPUS = Path(__file__).resolve().parent.parent.parent / "corpus" / "triton"
sys.path.insert(0, str(CORPUS))
import reference as R  # noqa: E402

f32 = np.float32


def close(test, got, want, rtol=1e-6, atol=1e-7):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    test.assertEqual(got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


class Fp8(unittest.TestCase):
    def test_known_encodings_fn(self):
        # e4m3 FN: bias 7. 1.0 = 2^0 -> exponent field 7 -> 0b0_0111_000 = 0x38; 448 = 1.75 * 2^8 -> 0b0_1111_110.
        # smallest subnormal 2^-6 * 1/8 = 2^-9 -> 0x01; smallest normal 2^-6 -> 0x08; -1.0 -> 0xB8; 0.5 -> 0x30.
        x = [1.0, 448.0, 2.0 ** -9, 2.0 ** -6, -1.0, 0.5, 0.0]
        self.assertEqual(list(R.fp8_encode(x, "fp8e4m3fn")), [0x38, 0x7E, 0x01, 0x08, 0xB8, 0x30, 0x00])

    def test_known_encodings_fnuz(self):
        # e4m3 FNUZ: bias 8. 1.0 -> field 8 -> 0x40; 240 = 1.875 * 2^7 -> 0b0_1111_111 = 0x7F;
        # smallest subnormal 2^-7 / 8 = 2^-10 -> 0x01; -1.0 -> 0xC0; zero (also -0.0) -> 0x00 (0x80 is NaN).
        x = [1.0, 240.0, 2.0 ** -10, -1.0, 0.0, -0.0]
        self.assertEqual(list(R.fp8_encode(x, "fp8e4m3fnuz")), [0x40, 0x7F, 0x01, 0xC0, 0x00, 0x00])

    def test_round_ties_to_even_and_saturate(self):
        # In [1, 2) the step is 1/8. 1.0625 is halfway between 1.0 (mantissa 000, even) and 1.125 -> 1.0;
        # 1.1875 is halfway between 1.125 (001) and 1.25 (010, even) -> 1.25. 1.2 -> 1.25 (nearest).
        # Above the max: saturate (FN 448, FNUZ 240), sign kept.
        got = R.fp8_round([1.0625, 1.1875, 1.2, 1000.0, -1000.0, 460.0], "fp8e4m3fn")
        self.assertEqual(list(got), [1.0, 1.25, 1.25, 448.0, -448.0, 448.0])
        got = R.fp8_round([1.0625, 1.1875, 1000.0, -250.0], "fp8e4m3fnuz")
        self.assertEqual(list(got), [1.0, 1.25, 240.0, -240.0])

    def test_subnormal_rounding(self):
        # FN subnormal step 2^-9: 3.4 * 2^-9 -> 3 * 2^-9; 2.5 * 2^-9 -> tie -> 2 * 2^-9 (even); 0.4 * 2^-9 -> 0.
        q = 2.0 ** -9
        got = R.fp8_round([3.4 * q, 2.5 * q, 0.4 * q], "fp8e4m3fn")
        self.assertEqual(list(got), [f32(3 * q), f32(2 * q), 0.0])

    def test_decode_specials(self):
        self.assertTrue(np.isnan(R.fp8_decode([0x80], "fp8e4m3fnuz")[0]))
        self.assertTrue(np.isnan(R.fp8_decode([0x7F], "fp8e4m3fn")[0]))
        self.assertTrue(np.isnan(R.fp8_decode([0xFF], "fp8e4m3fn")[0]))
        z = R.fp8_decode([0x80], "fp8e4m3fn")[0]
        self.assertEqual(z, 0.0)
        self.assertTrue(np.signbit(z))
        # FNUZ 0xFF = -(1.875 * 2^7) = -240 (not NaN: FNUZ has no infinities and only 0x80 as NaN).
        self.assertEqual(R.fp8_decode([0xFF], "fp8e4m3fnuz")[0], -240.0)

    def test_all_codes_round_trip(self):
        for fmt in ["fp8e4m3fn", "fp8e4m3fnuz"]:
            codes = np.arange(256, dtype=np.uint8)
            vals = R.fp8_decode(codes, fmt)
            finite = ~np.isnan(vals)
            self.assertEqual(int((~finite).sum()), 2 if fmt == "fp8e4m3fn" else 1)
            back = R.fp8_encode(vals[finite], fmt)
            self.assertEqual(list(back), list(codes[finite]), fmt)
            # and fp8_round leaves every representable value alone
            self.assertEqual(list(R.fp8_round(vals[finite], fmt)), list(vals[finite]))


class Kernels(unittest.TestCase):
    def test_vector_add(self):
        got = R.vector_add_kernel({"x": [1.0, 2.5], "y": [-1.0, 0.25], "n": 2}, [1, 1, 1])["out"]
        self.assertEqual(list(got), [0.0, 2.75])

    def test_gelu_add(self):
        # gelu_tanh(z) = 0.5 z (1 + tanh(sqrt(2/pi)(z + 0.044715 z^3))): published values
        # gelu(0) = 0, gelu(1) = 0.841192, gelu(-1) = -0.158808, gelu(2) = 1.954598; large z -> z, very negative -> 0.
        x = [0.0, 0.5, -0.5, 1.5, 10.0, -10.0]
        y = [0.0, 0.5, -0.5, 0.5, 0.0, 0.0]
        got = R.gelu_add_kernel({"x": x, "y": y, "n": 6}, [1, 1, 1])["out"]
        close(self, got, [0.0, 0.841192, -0.158808, 1.954598, 10.0, 0.0], rtol=2e-6, atol=1e-6)

    def test_silu_and_mul(self):
        # rows [gate(d) | up(d)], d = 2. silu(ln 3) = ln3 * sigmoid(ln3) = ln3 * 3/4; silu(0) = 0;
        # silu(-ln 3) = -ln3 * 1/4.
        l3 = math.log(3.0)
        x = [l3, 0.0, 2.0, 5.0,      # row 0: gate [ln3, 0], up [2, 5]
             -l3, 1.0, 4.0, 0.0]     # row 1: gate [-ln3, 1], up [4, 0]
        got = R.silu_and_mul_kernel({"x": x, "d": 2}, [2, 1, 1])["out"]
        close(self, got, [1.5 * l3, 0.0, -l3, 0.0])

    def test_rmsnorm(self):
        # row [3, 4]: mean(x^2) = 12.5, with eps 0.5 -> rstd = 1/sqrt(13) ; row [2, -2]: mean 4 -> rstd 1/sqrt(4.5)
        w = [1.0, 2.0]
        got = R.rmsnorm_kernel({"x": [3.0, 4.0, 2.0, -2.0], "w": w, "n_cols": 2, "eps": 0.5}, [2, 1, 1])["out"]
        s13, s45 = math.sqrt(13.0), math.sqrt(4.5)
        close(self, got, [3 / s13, 8 / s13, 2 / s45, -4 / s45])

    def test_fused_add_rmsnorm(self):
        # s = x + residual = [2, 2] -> mean(s^2) = 4 -> rstd = 1/2 (eps 0) -> x = [1, 1] * w; residual = s.
        got = R.fused_add_rmsnorm_kernel({"x": [1.0, 0.0], "residual": [1.0, 2.0], "w": [0.5, 3.0], "n_cols": 2,
                                          "eps": 0.0}, [1, 1, 1])
        close(self, got["x"], [0.5, 3.0])
        close(self, got["residual"], [2.0, 2.0])

    def test_softmax_strided(self):
        # 2 rows, n_cols 2 of x_row_stride 4 (columns 2, 3 are padding, ignored), out_row_stride 3 (col 2 = 0).
        # softmax([0, ln 3]) = [1/4, 3/4]; softmax([5, 5]) = [1/2, 1/2] (shift-invariant).
        l3 = math.log(3.0)
        x = [0.0, l3, 1e30, -7.0, 5.0, 5.0, 1e30, 1e30]
        got = R.softmax_kernel({"x": x, "n_cols": 2, "x_row_stride": 4, "out_row_stride": 3}, [2, 1, 1])["out"]
        close(self, got, [0.25, 0.75, 0.0, 0.5, 0.5, 0.0])

    def test_layernorm(self):
        # row [1, 3]: mean 2, var 1 -> rstd 1/sqrt(1 + 0.25) = 1/sqrt(1.25); y = [-1, 1] * rstd * w + b.
        # row [4, 4]: mean 4, var 0 -> rstd 1/sqrt(0.25) = 2; y = b.
        w, b = [2.0, 3.0], [0.5, -0.5]
        got = R.layernorm_kernel({"x": [1.0, 3.0, 4.0, 4.0], "w": w, "b": b, "n_cols": 2, "eps": 0.25}, [2, 1, 1])
        r = 1 / math.sqrt(1.25)
        close(self, got["out"], [-2 * r + 0.5, 3 * r - 0.5, 0.5, -0.5])
        close(self, got["mean"], [2.0, 4.0])
        close(self, got["rstd"], [r, 2.0])

    def test_rotary_gqa(self):
        # dim 4 (half 2), 2 tokens, 2 q heads, 1 kv head. cos_sin rows: pos 0 = [cos cos | sin sin] = [1 1 | 0 0]
        # (identity), pos 1 = [0 0 | 1 1] (90 degrees: x1' = -x2, x2' = x1). positions = [1, 0].
        # k_token_stride 6 > 1 head * 4: the 2 padding values per token stay unchanged.
        cos_sin = [1, 1, 0, 0, 0, 0, 1, 1]
        q = [1, 2, 3, 4, 5, 6, 7, 8,           # token 0 (pos 1): heads [1 2 3 4], [5 6 7 8]
             1, 2, 3, 4, 5, 6, 7, 8]           # token 1 (pos 0): unchanged
        k = [1, 2, 3, 4, 99, 98,
             5, 6, 7, 8, 97, 96]
        args = {"positions": [1, 0], "q": q, "k": k, "cos_sin": cos_sin, "num_kv_heads": 1,
                "q_token_stride": 8, "k_token_stride": 6}
        got = R.rotary_kernel(args, [2, 2, 1])
        close(self, got["q"], [-3, -4, 1, 2, -7, -8, 5, 6, 1, 2, 3, 4, 5, 6, 7, 8])
        close(self, got["k"], [-3, -4, 1, 2, 99, 98, 5, 6, 7, 8, 97, 96])
        # a general angle: cos 0.6, sin 0.8 on [x1, x2] = [1, 2] -> [0.6 - 1.6, 1.2 + 0.8] = [-1, 2]
        got = R.rotary_kernel({"positions": [0], "q": [1, 1, 2, 2], "k": [1, 1, 2, 2],
                               "cos_sin": [0.6, 0.6, 0.8, 0.8], "num_kv_heads": 1, "q_token_stride": 4,
                               "k_token_stride": 4}, [1, 1, 1])
        close(self, got["q"], [-1, -1, 2, 2])

    def test_matmul_strided(self):
        # [[1 2 3], [4 5 6]] @ [[7 8], [9 10], [11 12]] = [[58 64], [139 154]]; a padded to stride 4, b to 3,
        # c to 3 (c's padding column is 0 in the reference).
        a = [1, 2, 3, 100, 4, 5, 6, 100]
        b = [7, 8, 100, 9, 10, 100, 11, 12, 100]
        got = R.matmul_kernel({"a": a, "b": b, "c": [0] * 6, "M": 2, "N": 2, "K": 3, "stride_am": 4,
                               "stride_bk": 3, "stride_cm": 3}, [1, 1, 1])["c"]
        close(self, got, [58, 64, 0, 139, 154, 0])

    def test_decode_attention(self):
        # batch 1, 2 heads, 1 kv head (GQA group 2), dim 2, max_seq 3, seq_len 2 (key 2 must be ignored).
        # head 0: q = [ln 3, 0], keys [1 0], [0 1], scale 1 -> scores [ln3, 0] -> p = [3/4, 1/4]
        #   -> out = 3/4 [1 2] + 1/4 [5 6] = [2, 3]. head 1: q = 0 -> p = [1/2, 1/2] -> out = [3, 4].
        l3 = math.log(3.0)
        k = [1, 0, 0, 1, 50, 50]
        v = [1, 2, 5, 6, 1000, 1000]
        args = {"q": [l3, 0, 0, 0], "k_cache": k, "v_cache": v, "out": [0] * 4, "seq_lens": [2],
                "sm_scale": 1.0, "max_seq": 3}
        close(self, R.decode_attention_kernel(args, [1, 2, 1])["out"], [2, 3, 3, 4])
        # sm_scale multiplies the scores: q = [2 ln 3, 0] with scale 1/2 gives the same as above.
        args["q"], args["sm_scale"] = [2 * l3, 0, 0, 0], 0.5
        close(self, R.decode_attention_kernel(args, [1, 2, 1])["out"], [2, 3, 3, 4])

    def test_fp8_quant(self):
        # FNUZ (max 240): row [1, -2, 0.5]: amax 2, scale 2/240, y = [120, -240, 60] (all representable).
        # row [1, 0.33, 0]: scale 1/240, y = [240, 79.2, 0] -> 79.2 in [64, 128) has step 8 -> 80.
        x = [1, -2, 0.5, 1, 0.33, 0]
        got = R.fp8_quant_fnuz_kernel({"x": x, "n_cols": 3}, [2, 1, 1])
        close(self, got["out"], [120, -240, 60, 240, 80, 0])
        close(self, got["scale"], [f32(2) / f32(240), f32(1) / f32(240)])
        # FN (max 448): row 1: y = [448, 147.84, 0] -> 147.84 in [128, 256) has step 16 -> 144.
        got = R.fp8_quant_fn_kernel({"x": x, "n_cols": 3}, [2, 1, 1])
        close(self, got["out"], [224, -448, 112, 448, 144, 0])
        # all-zero row: amax clamps to 1e-12, so out = 0 (not NaN)
        got = R.fp8_quant_fn_kernel({"x": [0, 0], "n_cols": 2}, [1, 1, 1])
        close(self, got["out"], [0, 0])
        close(self, got["scale"], [f32(1e-12) / f32(448)])

    def test_argmax_first_on_ties(self):
        got = R.argmax_kernel({"logits": [1, 5, 5, 2, -3, -1, -2, -1], "vocab": 4}, [2, 1, 1])["out"]
        self.assertEqual(list(got), [1, 1])
        self.assertEqual(got.dtype, np.int64)

    def test_embedding(self):
        table = [0, 1, 10, 11, 20, 21]
        got = R.embedding_kernel({"ids": [2, 0, 2], "table": table, "dim": 2}, [3, 1, 1])["out"]
        close(self, got, [20, 21, 0, 1, 20, 21])


class Coverage(unittest.TestCase):
    def test_every_manifest_kernel_has_reference_and_tolerances(self):
        manifest = json.loads((CORPUS / "manifest.json").read_text())
        for kernel in manifest["kernels"]:
            self.assertIn(kernel, R.REFERENCES)
            spec = yaml.safe_load((CORPUS / "launch" / f"{kernel}.yaml").read_text())
            buffers = {a["name"] for a in spec["args"] if "buffer" in a}
            self.assertTrue(set(R.TOLERANCE[kernel]) <= buffers, kernel)
            self.assertTrue(R.TOLERANCE[kernel], kernel)

    def test_outputs_match_spec_buffers(self):
        # On inputs shaped like the launch spec's, each reference returns exactly the buffers of its
        # TOLERANCE entry, each with the spec's element count, and no NaN.
        rng = np.random.default_rng(0)
        manifest = json.loads((CORPUS / "manifest.json").read_text())
        for kernel in manifest["kernels"]:
            spec = yaml.safe_load((CORPUS / "launch" / f"{kernel}.yaml").read_text())
            args, counts = {}, {}
            for a in spec["args"]:
                if "buffer" in a:
                    counts[a["name"]] = a["count"]
                    init = a.get("init", "zeros")
                    if isinstance(init, dict) and "ints" in init:
                        lo, hi = init["ints"]
                        args[a["name"]] = rng.integers(lo, hi, size=a["count"])  # hi exclusive: valid either way
                    else:
                        args[a["name"]] = rng.normal(0, 1, size=a["count"]).astype(np.float32)
                elif "value" in a:
                    args[a["name"]] = a["value"]
            out = R.reference(kernel, args, spec["grid"])
            self.assertEqual(set(out), set(R.TOLERANCE[kernel]), kernel)
            for name, v in out.items():
                self.assertEqual(np.asarray(v).size, counts[name], f"{kernel}.{name}")
                self.assertFalse(np.isnan(np.asarray(v, dtype=np.float64)).any(), f"{kernel}.{name}")


if __name__ == "__main__":
    unittest.main(verbosity=1)
