"""fp8 as bytes: e4m3fnuz (gfx942's fp8: exponent bias 8, no infinities, 0x80 is the only NaN, max 240) and OCP
e4m3fn (gfx950's fp8: exponent bias 7, no infinities, NaN 0x7f and 0xff, max 448)."""
import numpy as np


def decode_e4m3fnuz(b):
    b = np.asarray(b, dtype=np.uint8).astype(np.int64)
    sign = np.where(b >> 7, -1.0, 1.0)
    e, m = (b >> 3) & 15, b & 7
    mag = np.where(e == 0, m / 8.0 * 2.0 ** -7, (1 + m / 8.0) * 2.0 ** (e - 8.0))
    return np.where(b == 0x80, np.nan, sign * mag)


def decode_e4m3fn(b):
    b = np.asarray(b, dtype=np.uint8).astype(np.int64)
    sign = np.where(b >> 7, -1.0, 1.0)
    e, m = (b >> 3) & 15, b & 7
    mag = np.where(e == 0, m / 8.0 * 2.0 ** -6, (1 + m / 8.0) * 2.0 ** (e - 7.0))
    return np.where((b & 0x7f) == 0x7f, np.nan, sign * mag)


def random_e4m3fnuz(rng, shape, max_exp=9):
    """Random finite fp8 bytes with |x| < 2^(max_exp-7) (exponent field <= max_exp), never the NaN 0x80."""
    e = rng.integers(0, max_exp + 1, size=shape)
    m = rng.integers(0, 8, size=shape)
    s = rng.integers(0, 2, size=shape)
    b = (s << 7) | (e << 3) | m
    b = np.where(b == 0x80, 0, b)
    return b.astype(np.uint8)


def _finite_codes(decode):
    """The format's finite values in increasing order, each with its code (one code per value: +0, not -0)."""
    values, codes = [], []
    for b in range(256):
        v = float(decode(np.array([b]))[0])
        if not np.isnan(v) and v not in values:
            values.append(v)
            codes.append(b)
    order = np.argsort(values, kind="stable")
    return np.array(values)[order], np.array(codes)[order]


_FINITE_CODES = _finite_codes(decode_e4m3fnuz)
_FINITE_CODES_FN = _finite_codes(decode_e4m3fn)


def round_e4m3fnuz(x, finite_codes=_FINITE_CODES):
    """x rounded to the nearest fp8 value (e4m3fnuz, or the format of `finite_codes`), ties to the even code
    (mantissa LSB 0), as v_cvt_pk_fp8_f32 rounds (round to nearest even); saturating. Ties are common: bf16
    inputs times an f32 scale often land exactly on a midpoint."""
    finite, codes = finite_codes
    x = np.asarray(x, dtype=np.float64)
    i = np.clip(np.searchsorted(finite, x), 1, len(finite) - 1)
    lo, hi = finite[i - 1], finite[i]
    dlo, dhi = np.abs(x - lo), np.abs(hi - x)
    return np.where(dlo < dhi, lo, np.where(dhi < dlo, hi, np.where(codes[i - 1] & 1, hi, lo)))


def quantize_rowmax(x, fn=False):
    """Per-row fp8 quantisation as AITer's kernels do it: scale so |row| max is the format's max (240 fnuz,
    448 fn), round, scale back."""
    top, finite = (448.0, _FINITE_CODES_FN) if fn else (240.0, _FINITE_CODES)
    m = np.abs(x).max(axis=-1, keepdims=True)
    m = np.where(m == 0, 1, m)
    return round_e4m3fnuz(x / m * top, finite) * m / top


_BYTE_OF = {float(v): b for b, v in enumerate(decode_e4m3fnuz(np.arange(256))) if not np.isnan(v) and b != 0x80}
_BYTE_OF[0.0] = 0  # +0, not the -0 pattern


def encode_e4m3fnuz(x):
    """Bytes of values that are exactly fp8 e4m3fnuz (round first with round_e4m3fnuz)."""
    x = np.asarray(x, dtype=np.float64)
    return np.vectorize(lambda v: _BYTE_OF[float(v)], otypes=[np.uint8])(x)
