/* Internals shared by the Matrix Market reader and writer (sparse/mm_read.c,
 * sparse/mm_write.c) and their unit test. Not part of the public API. */
#ifndef CGMODEL_SPARSE_MM_INTERNAL_H
#define CGMODEL_SPARSE_MM_INTERNAL_H

#include <stddef.h>

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

#ifdef __cplusplus
}
#endif
#endif
