/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Number conversion (sparse/mm_number.h). Reader and writer share it, so a
 * written value is checked against the very parser that reads it back. */
#define _POSIX_C_SOURCE 200809L

#include "sparse/mm_number.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 128-bit approximations of 5^q for q = -342 .. 308, the most significant bit set: 5^q truncated
 * for q >= 0; for q < 0, floor(2^(L + 127) / 5^-q), L the bit length of 5^-q, plus 1 for q >= -27:
 * the table of the fast_float library (Lemire, "Number Parsing at a Gigabyte per Second", 2021).
 * Computed once, exactly, with integers of POW5_LIMBS 32-bit limbs: 5^n by multiplying,
 * floor(2^1023 / 5^n) by dividing by 5 (floor of floor is the floor of the quotient), each entry
 * the 128 bits below the top of one of them. */
#define POW5_MIN (-342)
#define POW5_MAX 308
#define POW5_LIMBS 32 /* 1024 bits: 2^1023 > 2^(L + 127) for 5^342, L = 795 */
static uint64_t pow5_128[2 * (POW5_MAX - POW5_MIN + 1)];
static pthread_once_t pow5_once = PTHREAD_ONCE_INIT;

/* The bits [at, at + 128) of x (bits below 0 are 0): out[0] the high word. */
static void bits128(const uint32_t *x, int at, uint64_t *out) {
  out[0] = out[1] = 0;
  for (int k = at + 127; k >= at; k--)
    out[(k - at) < 64] = out[(k - at) < 64] << 1 | (k >= 0 && (x[k / 32] >> (k % 32) & 1));
}

static void pow5_init(void) {
  uint32_t p[POW5_LIMBS] = {1}, r[POW5_LIMBS] = {0}; /* 5^n, floor(2^1023 / 5^n) */
  r[POW5_LIMBS - 1] = UINT32_C(1) << 31;
  for (int n = 0; n <= -POW5_MIN; n++) {
    int L = 32 * POW5_LIMBS;
    while (!(p[(L - 1) / 32] >> ((L - 1) % 32) & 1)) L--;
    if (n <= POW5_MAX) bits128(p, L - 128, &pow5_128[2 * (n - POW5_MIN)]);
    uint64_t *t = &pow5_128[2 * (-n - POW5_MIN)];
    if (n > 0) bits128(r, 1023 - (L + 127), t);
    if (n > 0 && n <= 27 && ++t[1] == 0) t[0]++;
    uint64_t c = 0;
    for (int k = 0; k < POW5_LIMBS; k++, c >>= 32) p[k] = (uint32_t)(c += 5 * (uint64_t)p[k]);
    c = 0;
    for (int k = POW5_LIMBS - 1; k >= 0; k--, c %= 5) r[k] = (uint32_t)((c = c << 32 | r[k]) / 5);
  }
}

static inline double make_double(bool neg, uint64_t mant52, int64_t power2) {
  uint64_t bits = mant52 | ((uint64_t)power2 << 52) | ((uint64_t)neg << 63);
  double x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

/* floor(a / 65536) for the int64 range used here, without relying on the
 * implementation-defined right shift of negative numbers. */
static inline int64_t floor_div65536(int64_t a) {
  return a >= 0 ? a / 65536 : -((-a + 65535) / 65536);
}

int cgm_num_eisel_lemire(int64_t q, uint64_t w, bool neg, double *out) {
#if defined(__SIZEOF_INT128__) && defined(__GNUC__)
  if (q < POW5_MIN) { /* below half the smallest subnormal: rounds to zero */
    *out = neg ? -0.0 : 0.0;
    return 1;
  }
  if (q > POW5_MAX) return 2;
  pthread_once(&pow5_once, pow5_init);
  int lz = __builtin_clzll(w);
  w <<= lz;
  size_t idx = 2 * (size_t)(q - POW5_MIN);
  unsigned __int128 p1 = (unsigned __int128)w * pow5_128[idx];
  uint64_t hi = (uint64_t)(p1 >> 64), lo = (uint64_t)p1;
  const uint64_t mask = UINT64_C(0xFFFFFFFFFFFFFFFF) >> 55; /* 52 + 3 bits of precision */
  if ((hi & mask) == mask) {
    unsigned __int128 p2 = (unsigned __int128)w * pow5_128[idx + 1];
    uint64_t hi2 = (uint64_t)(p2 >> 64);
    lo += hi2;
    if (hi2 > lo) hi++;
  }
  /* The product may be too inexact to decide the rounding: give up outside
   * the exponents where it is exact (fast_float before its 2023 proof that
   * this never happens; a fallback costs nothing when it does not). */
  if (lo == UINT64_C(0xFFFFFFFFFFFFFFFF) && (q < -27 || q > 55)) return 0;
  int upperbit = (int)(hi >> 63);
  int shift = upperbit + 64 - 52 - 3;
  uint64_t mant = hi >> shift;
  int64_t power2 = floor_div65536((152170 + 65536) * q) + 63 + upperbit - lz + 1023;
  if (power2 <= 0) { /* subnormal or zero */
    if (-power2 + 1 >= 64) {
      *out = neg ? -0.0 : 0.0;
      return 1;
    }
    mant >>= -power2 + 1;
    mant += mant & 1;
    mant >>= 1;
    /* rounding may carry into the smallest normal exponent */
    power2 = mant < (UINT64_C(1) << 52) ? 0 : 1;
    *out = make_double(neg, mant & ~(UINT64_C(1) << 52), power2);
    return 1;
  }
  /* exactly halfway between two doubles: round to even (only possible for
   * small q, where the product is exact) */
  if (lo <= 1 && q >= -4 && q <= 23 && (mant & 3) == 1) {
    if ((mant << shift) == hi) mant &= ~UINT64_C(1);
  }
  mant += mant & 1;
  mant >>= 1;
  if (mant >= (UINT64_C(2) << 52)) {
    mant = UINT64_C(1) << 52;
    power2++;
  }
  mant &= ~(UINT64_C(1) << 52);
  if (power2 >= 0x7FF) return 2;
  *out = make_double(neg, mant, power2);
  return 1;
#else
  return 0;
#endif
}

/* A locale whose decimal point is not '.' gets its own substituted. */
cgm_num_result cgm_num_strtod(const char *s, const char *e, double *out) {
  char small[128];
  size_t n = (size_t)(e - s);
  char *b = n < sizeof small ? small : malloc(n + 1);
  if (!b) return CGM_NUM_NOMEM;
  memcpy(b, s, n);
  b[n] = '\0';
  char *endp;
  double v = strtod(b, &endp);
  if (endp != b + n) {
    const char *dp = localeconv()->decimal_point;
    char *dot = memchr(b, '.', n);
    if (dot && dp && dp[0] && !dp[1]) {
      *dot = dp[0];
      v = strtod(b, &endp);
    }
  }
  bool ok = endp == b + n;
  if (b != small) free(b);
  if (!ok) return CGM_NUM_BAD;
  if (!(v - v == 0.0)) return CGM_NUM_NONFINITE; /* overflow to +-Inf */
  *out = v;
  return CGM_NUM_OK;
}

cgm_num_result cgm_mm_parse_double(const char *s, size_t len, double *out) {
  char small[64];
  char *b = len < sizeof small ? small : malloc(len + 1);
  if (!b) return CGM_NUM_NOMEM;
  memcpy(b, s, len);
  b[len] = '\0';
  const char *e;
  bool frac;
  double v = 0.0;
  cgm_num_result r = mm_parse_number(b, b + len, &e, &v, &frac);
  if (r == CGM_NUM_OK && e != b + len) r = CGM_NUM_BAD;
  if (r == CGM_NUM_NONFINITE && len > 0) {
    /* only a whole-token nan/inf/infinity counts as one; "info" is bad */
    const char *p = b + (*b == '+' || *b == '-');
    size_t n = len - (size_t)(p - b);
    static const char *const words[] = {"nan", "inf", "infinity"};
    bool word = false, isnum = p != b + len && (mm_is_digit((unsigned char)*p) || *p == '.');
    for (int w = 0; w < 3 && !word; w++) word = mm_kw_eq(p, n, words[w]);
    if (!word && !isnum) r = CGM_NUM_BAD;
    if (isnum && e != b + len) r = CGM_NUM_BAD;
  }
  if (b != small) free(b);
  if (r == CGM_NUM_OK) *out = v;
  return r;
}

static bool same_bits(double a, double b) {
  uint64_t x, y;
  memcpy(&x, &a, sizeof x);
  memcpy(&y, &b, sizeof y);
  return x == y;
}

/* The %g rendering of the P significant digits d[0..P) with decimal
 * exponent X (value d0.d1d2... * 10^X), as glibc's printf("%.Pg") writes
 * it: scientific when X < -4 or X >= P, trailing zeros removed. */
static int render_g(char *buf, bool neg, const char *d, int P, int X) {
  char *o = buf;
  int m = P;
  while (m > 1 && d[m - 1] == '0') m--;
  if (neg) *o++ = '-';
  if (X < -4 || X >= P) {
    *o++ = d[0];
    if (m > 1) {
      *o++ = '.';
      memcpy(o, d + 1, (size_t)m - 1);
      o += m - 1;
    }
    *o++ = 'e';
    *o++ = X < 0 ? '-' : '+';
    int ax = X < 0 ? -X : X;
    if (ax >= 100) *o++ = (char)('0' + ax / 100);
    *o++ = (char)('0' + ax / 10 % 10);
    *o++ = (char)('0' + ax % 10);
  } else if (X >= 0) {
    memcpy(o, d, (size_t)X + 1);
    o += X + 1;
    if (m > X + 1) {
      *o++ = '.';
      memcpy(o, d + X + 1, (size_t)(m - X - 1));
      o += m - X - 1;
    }
  } else {
    *o++ = '0';
    *o++ = '.';
    for (int k = 0; k < -X - 1; k++) *o++ = '0';
    memcpy(o, d, (size_t)m);
    o += m;
  }
  *o = '\0';
  return (int)(o - buf);
}

/* The 17 significant digits of ax > 0 correctly rounded (as %.16e prints them) and its decimal
 * exponent, without printf: V = ax * 10^k in [1e16, 1e17) is one correctly rounded x87 extended
 * operation (10^k, k <= 27, is exact there), so |V - exact| <= 2^-8; unless V is within 0.01 of a
 * rounding tie, rounding V to an integer gives the exact digits. Returns false (ask printf) outside
 * [1e-11, 1e43) or near a tie. */
static bool digits17_fast(double ax, char d[17], int *X) {
#if LDBL_MANT_DIG >= 64
  static const long double p10[28] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                      1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                      1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                      1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
  if (!(ax >= 1e-11 && ax < 1e43)) return false;
  int e10 = (int)floor(log10(ax));
  long double V = 0;
  for (int tries = 0; tries < 3; tries++) {
    int k = 16 - e10;
    if (k > 27 || k < -27) return false;
    V = k >= 0 ? (long double)ax * p10[k] : (long double)ax / p10[-k];
    if (V < 1e16L)
      e10--;
    else if (V >= 1e17L)
      e10++;
    else
      break;
  }
  if (!(V >= 1e16L && V < 1e17L)) return false;
  long double fl = floorl(V), frac = V - fl;
  if (fabsl(frac - 0.5L) <= 0.01L) return false;
  uint64_t v = (uint64_t)fl + (frac > 0.5L);
  if (v == UINT64_C(100000000000000000)) { /* rounded up to the next decade */
    v /= 10;
    e10++;
  }
  for (int k = 16; k >= 0; k--) {
    d[k] = (char)('0' + v % 10);
    v /= 10;
  }
  *X = e10;
  return true;
#else
  return false;
#endif
}

static bool round_trips(const char *s, int n, double x) {
  double y;
  return cgm_mm_parse_double(s, (size_t)n, &y) == CGM_NUM_OK && same_bits(x, y);
}

int cgm_mm_format_double(char *buf, double x) {
  /* Integers below 1e15 in magnitude: %.15g prints exactly their digits. */
  if (fabs(x) < 1e15 && x == trunc(x)) {
    char *o = buf;
    if (signbit(x)) *o++ = '-';
    o = mm_put_u64(o, (uint64_t)fabs(x));
    *o = '\0';
    return (int)(o - buf);
  }
  /* One conversion to 17 significant digits (what %.17g prints). The correctly rounded 16- and
   * 15-digit forms follow from them unless the dropped digits are exactly 5 or 50: the 17-digit
   * value is within half a unit of its last digit of the exact one, so a dropped 5 (50) could come
   * from either side of the tie; then printf is asked directly. */
  bool neg = signbit(x);
  char d17[17];
  int X;
  if (!digits17_fast(fabs(x), d17, &X)) {
    char e[48];
    snprintf(e, sizeof e, "%.16e", x);
    const char *p = e + neg;
    d17[0] = *p++;
    p++; /* the decimal point, whatever the locale */
    memcpy(d17 + 1, p, 16);
    p += 16;
    X = atoi(p + 1); /* after the 'e' */
  }
  for (int P = 15; P <= 16; P++) {
    int n;
    int tail = P == 16 ? d17[16] - '0' : (d17[15] - '0') * 10 + (d17[16] - '0');
    int half = P == 16 ? 5 : 50;
    if (tail == half) {
      n = snprintf(buf, 32, "%.*g", P, x);
      for (int k = 0; k < n; k++)
        if (buf[k] == ',') buf[k] = '.'; /* a locale with a decimal comma */
    } else {
      char d[17];
      int Xp = X;
      memcpy(d, d17, (size_t)P);
      if (tail > half) { /* round up, carrying */
        int k = P - 1;
        while (k >= 0 && d[k] == '9') d[k--] = '0';
        if (k >= 0) {
          d[k]++;
        } else {
          d[0] = '1'; /* 99..9 -> 100..0: one more decade */
          Xp++;
        }
      }
      n = render_g(buf, neg, d, P, Xp);
    }
    if (round_trips(buf, n, x)) return n;
  }
  return render_g(buf, neg, d17, 17, X); /* 17 digits always round-trip */
}
