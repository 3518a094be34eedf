/* Which vector instructions this CPU has, once for every olk header that picks a loop by level (olk_exp.h,
 * olk_sincos.h; olk_proj.h and olk_scale.h follow their levels): 0 baseline, 1 AVX2, 2 AVX-512F. */
#ifndef OLK_CPU_H
#define OLK_CPU_H

static int olk_simd_detect(void) {
    int level = 0;
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && !defined(OLK_NO_SIMD)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        level = 1;
    if (__builtin_cpu_supports("avx512f"))
        level = 2;
#endif
    return level;
}

#endif
