"""fp8 e4m3fnuz (gfx942's fp8: exponent bias 8, no infinities, 0x80 is the only NaN, max 240), as bytes."""
import numpy as np


def decode_e4m3fnuz(b):
    b = np.asarray(b, dtype=np.uint8).astype(np.int64)
    sign = np.where(b >> 7, -1.0, 1.0)
    e, m = (b >> 3) & 15, b & 7
    mag = np.where(e == 0, m / 8.0 * 2.0 ** -7, (1 + m / 8.0) * 2.0 ** (e - 8.0))
    return np.where(b == 0x80, np.nan, sign * mag)


def random_e4m3fnuz(rng, shape, max_exp=9):
    """Random finite fp8 bytes with |x| < 2^(max_exp-7) (exponent field <= max_exp), never the NaN 0x80."""
    e = rng.integers(0, max_exp + 1, size=shape)
    m = rng.integers(0, 8, size=shape)
    s = rng.integers(0, 2, size=shape)
    b = (s << 7) | (e << 3) | m
    b = np.where(b == 0x80, 0, b)
    return b.astype(np.uint8)


_CODES = np.array([b for b in range(256) if b != 0x80])
_FINITE = decode_e4m3fnuz(_CODES)
_ORDER = np.argsort(_FINITE, kind="stable")
_FINITE, _CODES = _FINITE[_ORDER], _CODES[_ORDER]


def round_e4m3fnuz(x):
    """x rounded to the nearest fp8 e4m3fnuz value, ties to the even code (mantissa LSB 0), as v_cvt_pk_fp8_f32
    rounds (round to nearest even); saturating. Ties are common: bf16 inputs times an f32 scale often land exactly
    on a midpoint."""
    x = np.asarray(x, dtype=np.float64)
    i = np.clip(np.searchsorted(_FINITE, x), 1, len(_FINITE) - 1)
    lo, hi = _FINITE[i - 1], _FINITE[i]
    dlo, dhi = np.abs(x - lo), np.abs(hi - x)
    return np.where(dlo < dhi, lo, np.where(dhi < dlo, hi, np.where(_CODES[i - 1] & 1, hi, lo)))


def quantize_rowmax(x):
    """Per-row fp8 quantisation as AITer's kernels do it: scale so |row| max is 240, round, scale back."""
    m = np.abs(x).max(axis=-1, keepdims=True)
    m = np.where(m == 0, 1, m)
    return round_e4m3fnuz(x / m * 240) * m / 240


_BYTE_OF = {float(v): b for b, v in enumerate(decode_e4m3fnuz(np.arange(256))) if not np.isnan(v) and b != 0x80}
_BYTE_OF[0.0] = 0  # +0, not the -0 pattern


def encode_e4m3fnuz(x):
    """Bytes of values that are exactly fp8 e4m3fnuz (round first with round_e4m3fnuz)."""
    x = np.asarray(x, dtype=np.float64)
    return np.vectorize(lambda v: _BYTE_OF[float(v)], otypes=[np.uint8])(x)
