/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared libraries opened on first use (dlopen) instead of linked: cuSPARSE, cuBLAS and NCCL are
 * about a gigabyte that a process which never calls them would map before main, the largest part of
 * a short solve's cold start. vendor_libs.h holds their tables. */
#pragma once

#include <pthread.h>
#include <stddef.h>

#include "cgmodel/status.h"

/* One symbol: its exported name and the function pointer (of the type its
 * header declares) that receives its address. */
typedef struct {
  const char *name;
  void *slot;
} cgm_dynsym;

/* A library and the symbols the program takes from it: a static object,
 * initialised with CGM_DYNLIB_INIT. */
typedef struct {
  const char *soname; /* searched for as the loader searches for a linked one */
  const char *user;   /* what needs it, for the message: "the cusparse backend" */
  const cgm_dynsym *syms;
  size_t nsyms;
  pthread_mutex_t lock;
  int state; /* 0 not tried yet, 1 loaded, -1 failed: msg says why */
  char msg[CGM_ERRMSG_MAX];
} cgm_dynlib;

#define CGM_DYNLIB_INIT(soname, user, syms)                                                        \
  { (soname), (user), (syms), sizeof(syms) / sizeof *(syms), PTHREAD_MUTEX_INITIALIZER, 0, "" }

/* The first call opens L and sets every slot (concurrent callers wait); CGM_OK, else CGM_ERUNTIME
 * naming the library or symbol, its user and dlerror()'s reason. The outcome is kept for the
 * process's life (NCCL may leave threads running in a library: it is never closed). */
cgm_status cgm_dynlib_load(cgm_dynlib *L, cgm_error *err);
