/* Number conversion, shared by the Matrix Market reader and writer
 * (docs/matrix-market.md, "Numbers"): decimal text to the correctly rounded
 * double (bit-identical to strtod in the C locale), and a double to the
 * shortest of %.15g, %.16g, %.17g that reads back to it.
 *
 * The scanner and Clinger's fast path are inline here because the reader's
 * entry loop calls them once per value; the Eisel-Lemire step, the strtod
 * fallback and the formatter are in sparse/mm_number.c. Not part of the
 * public API. */
#ifndef CGMODEL_SPARSE_MM_NUMBER_H
#define CGMODEL_SPARSE_MM_NUMBER_H

#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CGM_NUM_OK = 0,        /* parsed; the value is finite */
  CGM_NUM_BAD = 1,       /* not a decimal number (syntax) */
  CGM_NUM_NONFINITE = 2, /* "nan", "inf", "infinity" or a value that overflows to +-Inf */
  CGM_NUM_NOMEM = 3,     /* out of memory copying a very long token for strtod */
} cgm_num_result;

/* Parses the whole token s[0, len) as a decimal floating-point number:
 * [+-] digits [. digits] [(e|E) [+-] digits], at least one mantissa digit.
 * The result is bit-identical to strtod() in the C locale (correctly
 * rounded): Clinger's fast path, then the Eisel-Lemire algorithm, then
 * strtod itself for the rare inputs neither decides (more than 19
 * significant digits). Hexadecimal floats are rejected (CGM_NUM_BAD), and
 * so are NaN and Inf (CGM_NUM_NONFINITE). Underflow gives +-0 or a
 * subnormal exactly as strtod does. */
cgm_num_result cgm_mm_parse_double(const char *s, size_t len, double *out);

/* Formats x (finite) with the shortest of %.15g, %.16g, %.17g that parses
 * back to the same double, with '.' as the decimal point whatever the
 * locale. buf must hold at least 32 bytes; the result is NUL-terminated and
 * its length is returned. */
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

/* Scans the longest prefix of s of the form [+-] digits [. digits]
 * [(e|E) [+-] digits] with at least one mantissa digit. Returns its end, or
 * NULL when there is no mantissa digit. An 'e' not followed by exponent digits
 * is not consumed (strtod does the same), so the caller sees it as garbage. */
static inline const char *mm_scan_decimal(const char *s, mm_decnum *d) {
  const char *p = s;
  d->neg = false;
  d->frac = false;
  if (*p == '-') {
    d->neg = true;
    p++;
  } else if (*p == '+') {
    p++;
  }
  bool any = false;
  uint64_t m = 0;
  while (*p == '0') {
    p++;
    any = true;
  }
  const char *ds = p;
  while (mm_is_digit((unsigned char)*p)) m = m * 10 + (uint64_t)(*p++ - '0');
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
    while (mm_is_digit((unsigned char)*p)) m = m * 10 + (uint64_t)(*p++ - '0');
    nd += p - fd;
    e = -(int64_t)(p - fs);
    if (p > fs) any = true;
  }
  if (!any) return NULL;
  if (*p == 'e' || *p == 'E') {
    const char *q = p + 1;
    bool eneg = false;
    if (*q == '-') {
      eneg = true;
      q++;
    } else if (*q == '+') {
      q++;
    }
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

/* Eisel-Lemire: w * 10^q correctly rounded to a double, w != 0, w < 2^64.
 * Returns 1 with *out set, 2 for an overflow to infinity, 0 when it cannot
 * decide (the caller falls back to strtod). */
int cgm_num_eisel_lemire(int64_t q, uint64_t w, bool neg, double *out);

/* strtod on the token [s, e), which mm_scan_decimal has validated. */
cgm_num_result cgm_num_strtod(const char *s, const char *e, double *out);

/* Parses the number starting at s; *endp is where the scan stopped (the
 * caller checks that a token boundary follows). NaN/Inf spellings are
 * recognised to give them their own message. */
static inline cgm_num_result mm_parse_number(const char *s, const char **endp, double *out,
                                             bool *frac) {
  mm_decnum d;
  const char *e = mm_scan_decimal(s, &d);
  if (!e) {
    const char *p = s + (*s == '+' || *s == '-');
    int c0 = mm_lower_ascii((unsigned char)p[0]), c1 = mm_lower_ascii((unsigned char)p[1]),
        c2 = mm_lower_ascii((unsigned char)p[2]);
    *endp = s;
    if ((c0 == 'n' && c1 == 'a' && c2 == 'n') || (c0 == 'i' && c1 == 'n' && c2 == 'f'))
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

#ifdef __cplusplus
}
#endif
#endif
