/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CGM_API marks what libcgmodel exports: the library is built with hidden symbol visibility, so
 * only the functions declared with CGM_API in these public headers are part of its ABI. */
#pragma once

/* CGM_PRINTF(f, a): printf-style checks of a function's format (argument f)
 * and its arguments (from a). */
#if defined(__GNUC__) || defined(__clang__)
#define CGM_API __attribute__((visibility("default")))
#define CGM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CGM_API
#define CGM_PRINTF(f, a)
#endif

/* The declarations between CGM_BEGIN_DECLS and CGM_END_DECLS have C
 * linkage for a C++ includer (the CUDA sources, a C++ program). */
#ifdef __cplusplus
#define CGM_BEGIN_DECLS extern "C" {
#define CGM_END_DECLS }
#else
#define CGM_BEGIN_DECLS
#define CGM_END_DECLS
#endif
