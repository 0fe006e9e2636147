// The fast-call extension's one reference newer than glibc 2.28 (manylinux_2_28): __libc_single_threaded
// (GLIBC_2.32, read by libstdc++'s inline reference counting). setup.py links it with
// -Wl,--wrap=__libc_single_threaded, so the reference lands here: "not single-threaded", libstdc++ then always
// uses its atomic reference counts (the safe choice). See jitvision/csrc/glibc_compat.cpp.
#if defined(__x86_64__) && defined(__linux__)
#include <features.h>  // __GLIBC__
#endif
#if defined(__x86_64__) && defined(__GLIBC__)
extern "C" __attribute__((visibility("hidden"))) char __wrap___libc_single_threaded = 0;
#endif
