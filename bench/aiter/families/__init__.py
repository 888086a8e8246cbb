"""The AITer check's cases, one module per kernel family; each module's CASES are collected here."""
from families import fmha, fmoe, gemm, mla, pa

CASES = [*gemm.CASES, *pa.CASES, *fmha.CASES, *mla.CASES, *fmoe.CASES]
