/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Arrays that double as they fill, and are freed together. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cgmodel/export.h"

CGM_BEGIN_DECLS

/* Room for element n of an array of `elem`-byte elements with capacity
 * *cap (first `first`, then doubling): the array, moved if it grew; NULL
 * when memory runs out, the array and *cap unchanged. */
void *cgm_grow(void *v, int n, int *cap, size_t elem, int first);
/* Appends the `elem` bytes at item to the array *pv (the address of a T *) of *n elements, grown as
 * by cgm_grow: false, nothing changed, when memory runs out. */
bool cgm_push(void *pv, int *n, int *cap, const void *item, size_t elem, int first);

/* free() of each of the n pointers at p; CGM_FREE(a, b, ...) of its arguments (C only). */
void cgm_free_each(void *const *p, size_t n);
#define CGM_FREE(...)                                                                              \
  cgm_free_each((void *const[]){__VA_ARGS__}, sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))

CGM_END_DECLS
