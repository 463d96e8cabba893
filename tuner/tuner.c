/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The configuration search: every candidate is timed on its plan, so the
 * model sees each GPU's real segment instead of the paper's x/n and e/n. */
#include "cgmodel/tuner.h"
#include "common/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cgm_tuner_opts cgm_tuner_opts_default(void) {
  return (cgm_tuner_opts){
      .precisions = 1u << CGM_PREC_DOUBLE, .exchanges = 1u << CGM_EXCHANGE_HALO, .cusparse = true};
}

static cgm_status push(cgm_candidate **v, int *n, int *cap, const cgm_candidate *c,
                       cgm_error *err) {
  return cgm_push(v, n, cap, c, sizeof *c, 64)
             ? CGM_OK
             : cgm_fail(err, CGM_ERUNTIME, "out of memory listing configurations");
}

static bool usable(const cgm_candidate *c) {
  return c->fits && isfinite(c->time_per_iter_s);
}

int cgm_tuner_max_gpus(const cgm_tuner_device *devs, int ndev, const cgm_tuner_opts *o) {
  int m = 1;
  for (int d = 0; d < ndev; d++)
    if (!devs[d].is_cpu && devs[d].gpus > m) m = devs[d].gpus;
  if (o->max_gpus > 0 && o->max_gpus < m) m = o->max_gpus;
  return m > CGM_MAX_GPUS ? CGM_MAX_GPUS : m;
}

static double tuner_tol(const cgm_tuner_opts *o) {
  return o->tol > 0 ? o->tol : CGM_DEFAULT_TOL;
}

/* Single precision only where it can reach the tolerance, unless the user asked for it alone. */
static bool precision_offered(const cgm_tuner_opts *o, cgm_precision p) {
  if (!(o->precisions & (1u << p))) return false;
  if (p == CGM_PREC_SINGLE && o->precisions != (1u << CGM_PREC_SINGLE))
    return tuner_tol(o) >= CGM_SINGLE_MIN_TOL;
  return true;
}

/* Mixed precision's iterations: double's K times the matrix's ratio where measured. */
static double mixed_iterations(const cgm_tuner_device *dv, double k) {
  return ceil(k * (dv->mixed_ratio > 0 ? dv->mixed_ratio : 1.2));
}

/* Mixed precision's replacements, amortised: a double SpMV (timed as a double iteration) every
 * CGM_MIXED_REPLACE_EVERY steps; a CPU's (cgm_watch) at each tenfold fall and at least every 100
 * iterations, each about two iterations' passes and parallel regions (the truth, then the
 * direction's correction): 8 in gr_30_30's 41 iterations to 1e-8, a third of its solve. */
static double replacement_time(const cgm_tuner_device *dv, cgm_plan *plan,
                               const cgm_tuner_opts *o) {
  cgm_plan dp = *plan;
  dp.o.storage = CGM_STORAGE_FULL; /* the values kept in double, full (cuda_dev.cu) */
  cgm_plan_set_precision(&dp, CGM_PREC_DOUBLE);
  const double t = dv->have[CGM_PREC_DOUBLE] && !o->paper
                       ? cgm_refined_time(&dv->model[CGM_PREC_DOUBLE], &dp)
                       : 2.0 * cgm_refined_time(&dv->model[CGM_PREC_SINGLE], plan);
  const double km = mixed_iterations(dv, o->iterations);
  if (!dv->is_cpu || !(km > 0)) return t / CGM_MIXED_REPLACE_EVERY;
  return 2.0 * t * (fmax(0.0, ceil(-log10(tuner_tol(o)))) + km / 100.0) / km;
}

/* Setup, iterations and total of a timed candidate; on_device: its layout is built on the GPU
 * (cgm_gpu_opts.device_layout), whose setups have a line of their own once fitted. */
static void solution_time(cgm_candidate *c, const cgm_tuner_device *dv, double bytes,
                          bool on_device, const cgm_tuner_opts *o) {
  const double k = o->iterations > 0 ? o->iterations : 0;
  c->iterations = c->precision == CGM_PREC_MIXED ? mixed_iterations(dv, k) : k;
  const cgm_setup_model *sm = on_device && dv->setup_dev.samples > 0 ? &dv->setup_dev : &dv->setup;
  c->setup_s = cgm_setup_time(sm, bytes);
  c->total_s = c->setup_s + c->iterations * c->time_per_iter_s;
}

cgm_status cgm_tuner_plans(const cgm_csr *A, int max_gpus, int block, unsigned exchanges,
                           cgm_tuner_plan **out, int *count, cgm_error *err) {
  *out = NULL;
  *count = 0;
  int cap = 0;
  cgm_status st = CGM_OK;
  if (max_gpus < 1) max_gpus = 1;
  if (max_gpus > CGM_MAX_GPUS) max_gpus = CGM_MAX_GPUS;
  const unsigned cls = cgm_values_class(A->val, A->nnz, A->ncols);
  for (int bi = 0; bi < CGM_NBLOCKSIZES && !st; bi++) {
    const int n = cgm_block_sizes[bi];
    if (block && block != n) continue;
    cgm_plan_pattern *pt;
    if ((st = cgm_plan_pattern_make(A, n, &pt, err))) break;
    for (int G = 1; G <= max_gpus && !st; G++)
      for (int ex = 0; ex < CGM_NEXCHANGES && !st; ex++) {
        if (G == 1 ? ex != CGM_EXCHANGE_HALO : !(exchanges & (1u << ex))) continue;
        cgm_tuner_plan tp = {0};
        cgm_plan_opts po = cgm_plan_opts_default();
        po.backend = CGM_BACKEND_CUDA;
        po.layout.n = n;
        po.gpus = G;
        po.exchange = (cgm_exchange)ex;
        po.value_class = cls;
        cgm_error e2 = {0};
        if (cgm_plan_from_pattern(pt, &po, &tp.plan, &e2))
          continue; /* too few block rows for G segments: not a candidate */
        /* the CPU's plan: one layout, where one GPU's puts long rows apart */
        tp.cpu_split = G == 1 && cgm_plan_long_part(&tp.plan.seg[0]);
        if (tp.cpu_split) {
          cgm_plan_opts pc = po;
          pc.backend = CGM_BACKEND_CPU;
          if ((st = cgm_plan_from_pattern(pt, &pc, &tp.cpu_plan, err))) break;
        }
        if (!cgm_push(out, count, &cap, &tp, sizeof tp, 16))
          st = cgm_fail(err, CGM_ERUNTIME, "out of memory listing configurations");
      }
    cgm_plan_pattern_free(pt);
  }
  if (st) {
    free(*out);
    *out = NULL;
    *count = 0;
  }
  return st;
}

void cgm_tuner_what_if(cgm_tuner_device *d, int gpus, int present, const cgm_tuner_device *prof,
                       const char *name) {
  if (d->is_cpu) return;
  const int own = prof == d ? d->gpus : 1;     /* the GPU counts priced by its own curves */
  const bool staged = prof && prof->gpus <= 1; /* every mode host-staged, as the built-in */
  if (gpus > CGM_MAX_GPUS) gpus = CGM_MAX_GPUS;
  for (int k = 0; k < 4; k++) { /* the refined and the paper's model of each precision */
    cgm_device_model *m = k < 2 ? &d->model[k] : &d->paper[k - 2];
    const cgm_device_model *pm = !prof ? NULL : k < 2 ? &prof->model[k] : &prof->paper[k - 2];
    for (int G = own + 1; G <= gpus; G++)
      for (int ex = 0; ex < CGM_NEXCHANGES; ex++) {
        const int g = prof && !staged && G > prof->gpus ? prof->gpus : G;
        const int e = staged ? CGM_EXCHANGE_HOST : ex;
        m->xfer[ex][G] = pm ? pm->xfer[e][g] : cgm_pcie_host_curve(m->width);
        m->have_xfer[ex][G] = !pm || pm->have_xfer[e][g];
      }
  }
  if (gpus > own && strcmp(name, d->interconnect)) /* never a copy onto itself */
    snprintf(d->interconnect, sizeof d->interconnect, "%s", name);
  if (gpus > d->gpus) d->gpus = gpus;
  d->what_if_from = 1 + (present < own ? present : own);
}

/* One candidate of device d on plan pl (its precision set to pr). */
static cgm_candidate price_one(const cgm_tuner_device *dv, int d, cgm_plan *pl, cgm_precision pr,
                               const cgm_features *f, const cgm_tuner_opts *o) {
  const int n = pl->o.layout.n, G = pl->nseg;
  const int ip = cgm_precision_iter(pr);
  /* e_N from the plan's own blocks: f may hold one block size alone */
  double e = 0;
  for (int g = 0; g < G; g++)
    for (int k = 0; k < pl->seg[g].nparts; k++) e += (double)pl->seg[g].part[k].blocks * n * n;
  const double x = f->x, nnz = (double)f->nnz;
  pl->o.backend = dv->is_cpu ? CGM_BACKEND_CPU : CGM_BACKEND_CUDA;
  pl->o.storage = o->storage;
  cgm_plan_set_precision(pl, pr);
  const int w = cgm_precision_width((cgm_precision)ip);
  cgm_candidate c = {.device = d,
                     .backend = pl->o.backend,
                     .precision = pr,
                     .block = n,
                     .gpus = dv->is_cpu ? 0 : G,
                     .exchange = pl->o.exchange,
                     .exchange_bytes = (double)pl->exchange_elems * w,
                     .values = pl->o.values};
  c.time_per_iter_s = o->paper ? cgm_paper_device_time(&dv->paper[ip], n, x, e, G,
                                                       pl->o.exchange != CGM_EXCHANGE_HOST)
                               : cgm_refined_time(&dv->model[ip], pl);
  if (pr == CGM_PREC_MIXED) c.time_per_iter_s += replacement_time(dv, pl, o);
  /* Eq. 6's flops of the stored elements, and of the nonzeros alone (Eq. 8: e d_N = nnz) */
  c.gflops_raw = cgm_paper_flops(x, e) / c.time_per_iter_s * 1e-9;
  c.gflops_real = cgm_paper_flops(x, nnz) / c.time_per_iter_s * 1e-9;
  c.memory_bytes = pl->device_bytes;
  c.fits = dv->is_cpu || dv->mem_bytes <= 0 || pl->device_bytes <= dv->mem_bytes;
  c.what_if = !dv->is_cpu && dv->what_if_from > 0 && G >= dv->what_if_from;
  c.speedup = NAN;
  /* Setup is timed by the bytes of the iteration's layout. Mixed precision uploads double's values
   * and makes its single copy on the device: priced as double's layout, its setups measured
   * 0.7-1.3x double's at N = 1 (median 0.93) and within 10% at N = 2 (docs/model.md). */
  const bool dev = !dv->is_cpu && cgm_plan_layout_on_device(pl);
  double setup_bytes = (double)pl->device_bytes;
  if (pr == CGM_PREC_MIXED) {
    cgm_plan sp = *pl;
    cgm_plan_set_precision(&sp, CGM_PREC_DOUBLE);
    setup_bytes = (double)sp.device_bytes;
  }
  solution_time(&c, dv, setup_bytes * (G > 1 ? G : 1), dev, o);
  return c;
}

/* The cuSPARSE baseline's candidates: CSR on one GPU, no block size. */
static cgm_status price_cusparse(const cgm_features *f, const cgm_tuner_device *devs, int ndev,
                                 const cgm_tuner_opts *o, cgm_candidate **out, int *count, int *cap,
                                 cgm_error *err) {
  cgm_status st = CGM_OK;
  const double x = f->x, nnz = (double)f->nnz;
  for (int d = 0; d < ndev && !st; d++) {
    const cgm_tuner_device *dv = &devs[d];
    if (dv->is_cpu) continue;
    for (int pr = 0; pr < 2 && !st; pr++) { /* no mixed precision in the baseline */
      if (!precision_offered(o, (cgm_precision)pr) || !dv->have[pr] || !dv->model[pr].have_cusparse)
        continue;
      cgm_candidate c = {.device = d,
                         .backend = CGM_BACKEND_CUSPARSE,
                         .precision = (cgm_precision)pr,
                         .block = 1,
                         .gpus = 1,
                         .time_per_iter_s =
                             cgm_refined_cusparse_time(&dv->model[pr], f->nnz, f->x)};
      c.gflops_raw = c.gflops_real = cgm_paper_flops(x, nnz) / c.time_per_iter_s * 1e-9;
      cgm_plan_opts po = cgm_plan_opts_default();
      po.backend = CGM_BACKEND_CUSPARSE;
      po.precision = (cgm_precision)pr;
      cgm_plan plan;
      /* CSR as it is: its plan reads the sizes alone */
      const cgm_csr sizes = {.nrows = (int32_t)f->x, .ncols = (int32_t)f->x, .nnz = f->nnz};
      if ((st = cgm_plan_make(&sizes, &po, &plan, err))) break;
      c.memory_bytes = plan.device_bytes;
      c.fits = dv->mem_bytes <= 0 || c.memory_bytes <= dv->mem_bytes;
      c.speedup = 1.0;
      c.what_if = dv->what_if_from == 1;
      solution_time(&c, dv, (double)plan.device_bytes, false, o);
      st = push(out, count, cap, &c, err);
    }
  }
  return st;
}

/* Speed-up over one GPU of the same device, block and precision. */
static void speedups(cgm_candidate *v, int count) {
  for (int i = 0; i < count; i++) {
    cgm_candidate *c = &v[i];
    if (c->backend != CGM_BACKEND_CUDA) {
      if (c->backend == CGM_BACKEND_CPU) c->speedup = 1.0;
      continue;
    }
    for (int j = 0; j < count; j++) {
      const cgm_candidate *b = &v[j];
      if (b->backend == CGM_BACKEND_CUDA && b->gpus == 1 && b->device == c->device &&
          b->block == c->block && b->precision == c->precision)
        c->speedup = b->time_per_iter_s / c->time_per_iter_s;
    }
  }
}

cgm_status cgm_tuner_price(const cgm_tuner_plan *plans, int nplans, const cgm_features *f,
                           const cgm_tuner_device *devs, int ndev, const cgm_tuner_opts *o,
                           cgm_candidate **out, int *count, cgm_error *err) {
  *out = NULL;
  *count = 0;
  int cap = 0, maxg = cgm_tuner_max_gpus(devs, ndev, o);
  cgm_tuner_opts oo = *o;
  if (!(oo.iterations > 0)) oo.iterations = cgm_iterations_estimate(f->x, tuner_tol(o));
  o = &oo;
  cgm_status st = CGM_OK;
  for (int i = 0; i < nplans && !st; i++) {
    const cgm_tuner_plan *tp = &plans[i];
    const int G = tp->plan.nseg, n = tp->plan.o.layout.n;
    if ((o->block && o->block != n) || G > maxg ||
        (G > 1 && !(o->exchanges & (1u << tp->plan.o.exchange))))
      continue;
    for (int d = 0; d < ndev && !st; d++) {
      const cgm_tuner_device *dv = &devs[d];
      if (dv->is_cpu ? G > 1 : G > dv->gpus) continue;
      cgm_plan pl = dv->is_cpu && tp->cpu_split ? tp->cpu_plan : tp->plan;
      for (int pr = 0; pr < 3 && !st; pr++) {
        const int ip = cgm_precision_iter((cgm_precision)pr);
        if (!precision_offered(o, (cgm_precision)pr) || !dv->have[ip]) continue;
        const cgm_candidate c = price_one(dv, d, &pl, (cgm_precision)pr, f, o);
        st = push(out, count, &cap, &c, err);
      }
    }
  }
  if (!st && o->cusparse) st = price_cusparse(f, devs, ndev, o, out, count, &cap, err);
  if (st) {
    free(*out);
    *out = NULL;
    *count = 0;
    return st;
  }
  speedups(*out, *count);
  return CGM_OK;
}

cgm_status cgm_tuner_candidates(const cgm_csr *A, const cgm_features *f,
                                const cgm_tuner_device *devs, int ndev, const cgm_tuner_opts *o,
                                cgm_candidate **out, int *count, cgm_error *err) {
  cgm_tuner_plan *plans = NULL;
  int nplans = 0;
  cgm_status st = cgm_tuner_plans(A, cgm_tuner_max_gpus(devs, ndev, o), o->block, o->exchanges,
                                  &plans, &nplans, err);
  if (!st) st = cgm_tuner_price(plans, nplans, f, devs, ndev, o, out, count, err);
  free(plans);
  return st;
}

static double mixed_margin(const cgm_tuner_device *dv) {
  return dv->mixed_measured && dv->mixed_ratio > 0 ? CGM_MIXED_MARGIN_MEASURED : CGM_MIXED_MARGIN;
}

/* The predicted total, mixed precision's raised by its margin. */
static double choice_cost(const cgm_candidate *c, const cgm_tuner_device *devs) {
  return c->precision == CGM_PREC_MIXED ? c->total_s / (1.0 - mixed_margin(&devs[c->device]))
                                        : c->total_s;
}

int cgm_tuner_choose(const cgm_candidate *c, int count, const cgm_tuner_device *devs, char *why,
                     size_t nwhy) {
  int best = -1;
  for (int i = 0; i < count; i++) {
    if (!usable(&c[i])) continue;
    const double tb = best < 0 ? INFINITY : choice_cost(&c[best], devs),
                 ti = choice_cost(&c[i], devs);
    /* Within 1%: fewer GPUs win (the CPU counts as none). */
    if (best < 0 || ti < tb * 0.99 || (ti <= tb * 1.01 && c[i].gpus < c[best].gpus)) best = i;
  }
  if (why && nwhy) {
    if (best < 0) {
      int big = 0, nocurve = 0;
      for (int i = 0; i < count; i++) {
        big += !c[i].fits;
        nocurve += c[i].fits && !isfinite(c[i].time_per_iter_s);
      }
      if (count == 0)
        snprintf(why, nwhy,
                 "no configuration to run: no calibrated device has curves for the "
                 "precision and backends asked (cgmodel calibrate --precision ...)");
      else
        snprintf(
            why, nwhy,
            "no configuration to run: %d of %d do not fit in memory, %d have no converged curve "
            "in their calibration (cgmodel db show ID lists the fits)",
            big, count, nocurve);
    } else {
      const cgm_candidate *b = &c[best];
      /* The runner-up with a different GPU count tells why this count. */
      int alt = -1;
      for (int i = 0; i < count; i++)
        if (i != best && usable(&c[i]) && c[i].gpus != b->gpus &&
            (alt < 0 || c[i].total_s < c[alt].total_s))
          alt = i;
      char target[240];
      if (b->backend == CGM_BACKEND_CPU)
        snprintf(target, sizeof target, "the CPU");
      else if (b->gpus > 1)
        snprintf(target, sizeof target, "%d x %.100s (%s exchange)", b->gpus, devs[b->device].name,
                 cgm_exchange_name(b->exchange));
      else
        snprintf(target, sizeof target, "1 x %.100s", devs[b->device].name);
      if (b->what_if) /* priced beyond what this machine has or its calibration measured */
        snprintf(target + strlen(target), sizeof target - strlen(target), " (what-if%s%.60s)",
                 b->gpus > 1 ? ", interconnect " : "",
                 b->gpus > 1 ? devs[b->device].interconnect : "");
      char tail[320] = "", who[32];
      if (alt >= 0) {
        if (c[alt].backend == CGM_BACKEND_CPU)
          snprintf(who, sizeof who, "the CPU");
        else
          snprintf(who, sizeof who, "%d GPU%s", c[alt].gpus, c[alt].gpus > 1 ? "s" : "");
        snprintf(tail, sizeof tail, "; the best on %s would take %.3g s (%.2fx)", who,
                 c[alt].total_s, c[alt].total_s / b->total_s);
      }
      /* A mixed candidate the margin set aside, though its total is less:
       * say so, or the line reads as a slower choice made for no reason. */
      int mx = -1;
      for (int i = 0; i < count && b->precision != CGM_PREC_MIXED; i++)
        if (usable(&c[i]) && c[i].precision == CGM_PREC_MIXED && c[i].total_s < b->total_s &&
            (mx < 0 || c[i].total_s < c[mx].total_s))
          mx = i;
      if (mx >= 0) {
        const size_t k = strlen(tail);
        snprintf(tail + k, sizeof tail - k,
                 "; mixed precision %.3g s, not the %.0f%% ahead it must be to be chosen",
                 c[mx].total_s, 100.0 * mixed_margin(&devs[c[mx].device]));
      }
      /* "the CPU, single precision, 8x8 blocks: ...", "1 x H200, cusparse, ..." */
      char backend[40] = "";
      if (b->backend != CGM_BACKEND_CPU)
        snprintf(backend, sizeof backend, "%s, ", cgm_backend_name(b->backend));
      snprintf(why, nwhy,
               "%s, %s%s precision, %dx%d blocks: %.3g s predicted (setup %.3g s + %.0f "
               "iterations x %.3g us)%s",
               target, backend, cgm_precision_name(b->precision), b->block, b->block, b->total_s,
               b->setup_s, b->iterations, 1e6 * b->time_per_iter_s, tail);
    }
  }
  return best;
}

void cgm_tuner_reorder(cgm_reorder_advice *a) {
  a->rcm = false;
  if (!isfinite(a->t_iter_none) || !isfinite(a->t_iter_rcm)) {
    snprintf(a->why, sizeof a->why, "no reordering: no prediction for this configuration");
    return;
  }
  const double none = a->iterations * a->t_iter_none;
  const double rcm = a->cost_s + a->iterations * a->t_iter_rcm;
  a->rcm = rcm < 0.99 * none;
  snprintf(a->why, sizeof a->why,
           "%s: %.0f iterations predicted %.3g s as numbered, %.3g s after RCM (%.3g s to "
           "reorder, %.3g us an iteration instead of %.3g)",
           a->rcm ? "reorder (rcm)" : "no reordering", a->iterations, none, rcm, a->cost_s,
           1e6 * a->t_iter_rcm, 1e6 * a->t_iter_none);
}
