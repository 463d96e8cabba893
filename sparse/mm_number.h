/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Number conversion of the Matrix Market reader and writer (docs/matrix-market.md, "Numbers"). The
 * scanner and Clinger's fast path are inline here because the reader's entry loop calls them once a
 * value; the rest is in sparse/mm_number.c. */
#pragma once

#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum {
  CGM_NUM_OK = 0,        /* parsed; the value is finite */
  CGM_NUM_BAD = 1,       /* not a decimal number (syntax) */
  CGM_NUM_NONFINITE = 2, /* "nan", "inf", "infinity" or a value that overflows to +-Inf */
  CGM_NUM_NOMEM = 3,     /* out of memory copying a very long token for strtod */
} cgm_num_result;

/* Parses the whole token s[0, len), [+-] digits [. digits] [(e|E) [+-] digits], bit-identical to
 * strtod() in the C locale: Clinger's fast path, then Eisel-Lemire, then strtod for what neither
 * decides (more than 19 digits). Hexadecimal floats are CGM_NUM_BAD, NaN and Inf
 * CGM_NUM_NONFINITE. */
cgm_num_result cgm_mm_parse_double(const char *s, size_t len, double *out);

/* Formats finite x with the shortest of %.15g, %.16g, %.17g that parses
 * back to it, '.' whatever the locale, into buf (32 bytes); its length. */
int cgm_mm_format_double(char *buf, double x);

/* ------------------------------------------------- the scanner's pieces --- */

static inline bool mm_is_digit(unsigned char c) {
  return (unsigned)(c - '0') < 10u;
}

/* Separators inside a line. '\r' counts as blank so CRLF files read. */
static inline bool mm_is_blank(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Where a token may end: a blank, the end of the line or a NUL (the writer's
 * and the test's NUL-terminated strings). */
static inline bool mm_is_tok_end(unsigned char c) {
  return mm_is_blank(c) || c == '\n' || c == '\0';
}

static inline int mm_lower_ascii(int c) {
  return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

/* s[0, n) is the lowercase keyword kw, in any case. */
static inline bool mm_kw_eq(const char *s, size_t n, const char *kw) {
  if (strlen(kw) != n) return false;
  for (size_t k = 0; k < n; k++)
    if (mm_lower_ascii((unsigned char)s[k]) != kw[k]) return false;
  return true;
}

/* 10^0 .. 10^22: exactly representable in a double. */
static const double mm_exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                          1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                          1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A scanned decimal: value = (neg ? -1 : 1) * mant * 10^exp10, valid while
 * ndig <= 19 (mant holds every significant digit). */
typedef struct {
  bool neg;
  bool frac;    /* a '.' or an exponent was present (not an integer literal) */
  int64_t ndig; /* significant digits (leading zeros not counted) */
  int64_t exp10;
  uint64_t mant; /* meaningless when ndig > 19 (it wraps) */
} mm_decnum;

/* Eight ASCII digits as one number (SWAR, as in fast_float): the long
 * mantissas of real data are read eight digits a step. */
static inline bool mm_is_8digits(uint64_t v) {
  return !(((v + UINT64_C(0x4646464646464646)) | (v - UINT64_C(0x3030303030303030))) &
           UINT64_C(0x8080808080808080));
}

static inline uint64_t mm_load8(const char *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

static inline uint32_t mm_parse_8digits(uint64_t v) {
  v -= UINT64_C(0x3030303030303030);
  v = (v * 10) + (v >> 8);
  v = (((v & UINT64_C(0x000000FF000000FF)) * UINT64_C(0x000F424000000064)) +
       (((v >> 16) & UINT64_C(0x000000FF000000FF)) * UINT64_C(0x0000271000000001))) >>
      32;
  return (uint32_t)v;
}

/* Digits from p into *m (wrapping past 19 digits: the caller counts them),
 * eight at a time while they lie before end; returns the first non-digit. */
static inline const char *mm_scan_digits(const char *p, const char *end, uint64_t *m) {
  uint64_t x = *m;
  while (end - p >= 8) {
    uint64_t v = mm_load8(p);
    if (!mm_is_8digits(v)) break;
    x = x * 100000000u + mm_parse_8digits(v);
    p += 8;
  }
  while (mm_is_digit((unsigned char)*p)) x = x * 10 + (uint64_t)(*p++ - '0');
  *m = x;
  return p;
}

/* Scans the longest prefix of s of the form [+-] digits [. digits] [(e|E) [+-] digits]: its end, or
 * NULL without a mantissa digit. end is the buffer's end, which the eight-digit steps never reach;
 * the byte-by-byte scan stops at the buffer's final newline. An 'e' without exponent digits is not
 * consumed (as by strtod), so the caller sees it as garbage. */
static inline const char *mm_scan_decimal(const char *s, const char *end, mm_decnum *d) {
  const char *p = s;
  d->neg = *p == '-';
  d->frac = false;
  p += *p == '-' || *p == '+';
  const char *z = p;
  while (*p == '0') p++;
  bool any = p > z;
  uint64_t m = 0;
  const char *ds = p;
  p = mm_scan_digits(p, end, &m);
  int64_t nd = p - ds;
  int64_t e = 0;
  if (nd) any = true;
  if (*p == '.') {
    p++;
    d->frac = true;
    const char *fs = p;
    if (nd == 0)
      while (*p == '0') p++; /* 0.000ddd: zeros that are not significant */
    const char *fd = p;
    p = mm_scan_digits(p, end, &m);
    nd += p - fd;
    e = -(int64_t)(p - fs);
    if (p > fs) any = true;
  }
  if (!any) return NULL;
  if (*p == 'e' || *p == 'E') {
    const char *q = p + 1;
    const bool eneg = *q == '-';
    q += *q == '-' || *q == '+';
    if (mm_is_digit((unsigned char)*q)) {
      int64_t x = 0;
      /* Clamped far beyond any double exponent but far from int64 overflow;
       * e itself is bounded by the token length. */
      while (mm_is_digit((unsigned char)*q)) {
        if (x < INT64_C(1000000000000000)) x = x * 10 + (*q - '0');
        q++;
      }
      e += eneg ? -x : x;
      p = q;
      d->frac = true;
    }
  }
  d->mant = m;
  d->ndig = nd;
  d->exp10 = e;
  return p;
}

/* Eisel-Lemire: w * 10^q (w != 0) correctly rounded: 1 with *out set, 2
 * for an overflow to infinity, 0 when it cannot decide (then strtod). */
int cgm_num_eisel_lemire(int64_t q, uint64_t w, bool neg, double *out);

/* strtod on the token [s, e), which mm_scan_decimal has validated. */
cgm_num_result cgm_num_strtod(const char *s, const char *e, double *out);

/* Forced inline: mm_parse_number runs once per value in the entry loop. */
#if defined(__GNUC__)
#define MM_ALWAYS_INLINE __attribute__((always_inline))
#else
#define MM_ALWAYS_INLINE
#endif

/* Parses the number at s, in a buffer that ends at end; *endp: where the scan stopped (the caller
 * checks for a token boundary there). NaN/Inf spellings are recognised to get their own message. */
static inline MM_ALWAYS_INLINE cgm_num_result mm_parse_number(const char *s, const char *end,
                                                              const char **endp, double *out,
                                                              bool *frac) {
  mm_decnum d;
  const char *e = mm_scan_decimal(s, end, &d);
  if (!e) {
    /* A byte is read only when the one before matched: a token at the very
     * end of a mapped file ends with its newline, nothing after it. */
    const char *p = s + (*s == '+' || *s == '-');
    *endp = s;
    int c0 = mm_lower_ascii((unsigned char)p[0]);
    if ((c0 == 'n' && mm_lower_ascii((unsigned char)p[1]) == 'a' &&
         mm_lower_ascii((unsigned char)p[2]) == 'n') ||
        (c0 == 'i' && mm_lower_ascii((unsigned char)p[1]) == 'n' &&
         mm_lower_ascii((unsigned char)p[2]) == 'f'))
      return CGM_NUM_NONFINITE;
    return CGM_NUM_BAD;
  }
  *endp = e;
  *frac = d.frac;
  if (d.ndig == 0) { /* all digits zero: +-0 whatever the exponent */
    *out = d.neg ? -0.0 : 0.0;
    return CGM_NUM_OK;
  }
  if (d.ndig <= 19) {
#if FLT_EVAL_METHOD == 0
    /* Clinger: mant and 10^|q| are exact doubles, one rounding. */
    if (d.mant <= (UINT64_C(1) << 53) && d.exp10 >= -22 && d.exp10 <= 22) {
      double v = (double)d.mant;
      v = d.exp10 < 0 ? v / mm_exact_pow10[-d.exp10] : v * mm_exact_pow10[d.exp10];
      *out = d.neg ? -v : v;
      return CGM_NUM_OK;
    }
#endif
    int r = cgm_num_eisel_lemire(d.exp10, d.mant, d.neg, out);
    if (r == 1) return CGM_NUM_OK;
    if (r == 2) return CGM_NUM_NONFINITE;
  }
  return cgm_num_strtod(s, e, out);
}

/* x as unsigned decimal digits at o; returns the end. */
static inline char *mm_put_u64(char *o, uint64_t x) {
  char t[20];
  int n = 0;
  do {
    t[n++] = (char)('0' + x % 10);
    x /= 10;
  } while (x);
  while (n) *o++ = t[--n];
  return o;
}
