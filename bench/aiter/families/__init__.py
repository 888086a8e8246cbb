"""The AITer check's cases, one module per kernel family; each module's CASES are collected here."""
from families import fmha, fmoe, fmoe_b16, gemm, mla, pa

CASES = [*gemm.CASES, *pa.CASES, *fmha.CASES, *mla.CASES, *fmoe.CASES, *fmoe_b16.CASES]
