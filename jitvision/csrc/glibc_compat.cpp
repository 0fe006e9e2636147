// The glibc the native library asks for: at most 2.28, the manylinux_2_28 floor that torch's own wheels have, so a
// library built on a newer glibc (Debian 12: 2.36) loads on any system that runs torch. Only three references of a
// build here are newer: exp and log (GLIBC_2.29, the versions without the SVID error wrapper; libpng adds pow) and
// __libc_single_threaded (GLIBC_2.32, which libstdc++'s inline reference counting reads). setup.py links with
// -Wl,--wrap=exp,--wrap=log,--wrap=pow,--wrap=__libc_single_threaded, so those references land here instead:
// the math functions call glibc's GLIBC_2.2.5 versions (the same implementation behind a wrapper that only sets
// errno on a range error: the same results), and the flag says "not single-threaded" (libstdc++ then always uses
// its atomic reference counts: the safe choice). auditwheel checks the result (tools/repair_wheel.py).
#if defined(__x86_64__) && defined(__linux__)
#include <features.h>  // __GLIBC__
#endif
#if defined(__x86_64__) && defined(__GLIBC__)

extern "C" {
double jitvision_glibc225_exp(double);
double jitvision_glibc225_log(double);
double jitvision_glibc225_pow(double, double);
__asm__(".symver jitvision_glibc225_exp, exp@GLIBC_2.2.5");
__asm__(".symver jitvision_glibc225_log, log@GLIBC_2.2.5");
__asm__(".symver jitvision_glibc225_pow, pow@GLIBC_2.2.5");

__attribute__((visibility("hidden"))) double __wrap_exp(double x) { return jitvision_glibc225_exp(x); }
__attribute__((visibility("hidden"))) double __wrap_log(double x) { return jitvision_glibc225_log(x); }
__attribute__((visibility("hidden"))) double __wrap_pow(double x, double y) { return jitvision_glibc225_pow(x, y); }
__attribute__((visibility("hidden"))) char __wrap___libc_single_threaded = 0;
}

#endif
