// read_cycles(): the CPU's tick counter, as perftest's get_cycles() reads it
// on each architecture: the TSC on x86-64, CNTVCT_EL0 on aarch64 (after an
// isb, as the kernel's readers do). bare_send_lat calibrates its rate.
#pragma once
#include <stdint.h>

#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t read_cycles(void) { return __rdtsc(); }
#elif defined(__aarch64__)
static inline uint64_t read_cycles(void) {
  uint64_t ticks;
  __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(ticks) : : "memory");
  return ticks;
}
#else
#error "bare_send_lat reads the x86-64 or aarch64 counter only"
#endif
