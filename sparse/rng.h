/* SPDX-License-Identifier: GPL-3.0-or-later */
/* splitmix64: the generators' and shuffles' random numbers, the same for a
 * seed on every machine. */
#pragma once

#include <stdint.h>

static inline uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* [0, 1) with 53 random bits. */
static inline double unif01(uint64_t *s) {
  return (double)(splitmix64(s) >> 11) * 0x1p-53;
}
