/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Opening a library on first use (dynlib.h). */
#include "solver/cuda/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* POSIX makes dlsym's result usable as a function pointer; ISO C has no such
 * conversion, so each slot is written byte for byte. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
               "a function pointer is as wide as a data pointer (POSIX)");

/* 1 when L is open and every slot set, else -1 with L->msg. */
static int open_lib(cgm_dynlib *L) {
  /* RTLD_NOW binds the library's own references now, so a broken
   * installation fails here, with a message, not in the middle of a solve;
   * RTLD_LOCAL keeps its symbols out of the scope other libraries bind to. */
  void *h = dlopen(L->soname, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    snprintf(L->msg, sizeof L->msg,
             "cannot load %s, which %s needs (the loader looks in LD_LIBRARY_PATH and the "
             "directories of ld.so.conf): %s",
             L->soname, L->user, why ? why : "no reason given");
    return -1;
  }
  for (size_t i = 0; i < L->nsyms; i++) {
    (void)dlerror(); /* a stale error must not be taken for this lookup's */
    void *p = dlsym(h, L->syms[i].name);
    if (!p) {
      const char *why = dlerror();
      snprintf(L->msg, sizeof L->msg, "%s has no %s, which %s needs: %s", L->soname,
               L->syms[i].name, L->user, why ? why : "its address is null");
      dlclose(h);
      return -1;
    }
    memcpy(L->syms[i].slot, &p, sizeof p);
  }
  return 1;
}

cgm_status cgm_dynlib_load(cgm_dynlib *L, cgm_error *err) {
  if (pthread_mutex_lock(&L->lock) != 0)
    return cgm_fail(err, CGM_ERUNTIME, "cannot lock the loader of %s", L->soname);
  if (L->state == 0) L->state = open_lib(L);
  int state = L->state;
  pthread_mutex_unlock(&L->lock);
  /* msg is written once, before state is, and never again */
  return state > 0 ? CGM_OK : cgm_fail(err, CGM_ERUNTIME, "%s", L->msg);
}
