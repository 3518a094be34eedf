/* A stand-in for "another machine's libm": exp, log and pow answer one ulp off for about 1 input in 8.
 *
 * Loaded with LD_PRELOAD by tests/test_portability.py.  glibc already picks exp() by CPU (FMA or not),
 * and different builds round differently; this makes such a difference certain and large, so the test
 * proves that learners declared `exact` never depend on libm's last bit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static int hit(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return ((u * 0x9E3779B97F4A7C15ull) >> 61) == 0;   /* ~1/8 of the inputs, decided by their bits */
}

static double nudge(double x, double r) {
    return (hit(x) && isfinite(r) && r != 0.0) ? nextafter(r, 0.0) : r;
}

double exp(double x) {
    static double (*real)(double);
    if (!real) real = (double (*)(double))dlsym(RTLD_NEXT, "exp");
    return nudge(x, real(x));
}

double log(double x) {
    static double (*real)(double);
    if (!real) real = (double (*)(double))dlsym(RTLD_NEXT, "log");
    return nudge(x, real(x));
}

double pow(double x, double y) {
    static double (*real)(double, double);
    if (!real) real = (double (*)(double, double))dlsym(RTLD_NEXT, "pow");
    return nudge(x + y, real(x, y));
}
