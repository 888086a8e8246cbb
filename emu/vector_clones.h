// ASMEVO_VECTOR_CLONES: one function compiled for each x86-64 vector width, the widest the host has picked at load
// time (an ifunc: AVX-512, AVX2 or baseline x86-64); elsewhere the one baseline build. For loops whose every step is
// exact or integer, so that every width gives the same bits.
#pragma once

#if defined(__x86_64__)
#define ASMEVO_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ASMEVO_VECTOR_CLONES
#endif
