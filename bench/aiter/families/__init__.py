"""The AITer check's cases, one module per kernel family; each module's CASES are collected here."""
from families import gemm, pa

CASES = [*gemm.CASES, *pa.CASES]
