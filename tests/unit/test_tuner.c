/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The tuner and the refined model on constructed devices: a tiny matrix
 * does not pick 4 GPUs; a matrix
 * that fits only across 4 GPUs picks 4; the refined time is monotone in
 * the bytes; ties go to fewer GPUs; a GPU calibration names the CG it
 * timed, and one that timed another CG than the solver runs is flagged. */
#define _DEFAULT_SOURCE /* M_LN2 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/tuner.h"
#include "test_util.h"

static void stale_cg(void) {
  char cg[16], msg[512];
  cgm_calibration_cg("{\"device\":\"cuda\",\"gpus\":1}", false, cg, sizeof cg);
  CHECK_MSG(!strcmp(cg, "classic"), "unrecorded GPU calibration: '%s'", cg);
  cgm_calibration_cg("{\"cg\":\"cgg\"}", false, cg, sizeof cg);
  CHECK_MSG(!strcmp(cg, "cgg"), "recorded: '%s'", cg);
  cgm_calibration_cg("not json", false, cg, sizeof cg);
  CHECK(!strcmp(cg, "classic"));
  cgm_calibration_cg("{\"cg\":\"foo\"}", false, cg, sizeof cg);
  CHECK_MSG(!strcmp(cg, "unknown"), "an unknown CG: '%s'", cg);
  cgm_calibration_cg("{\"cg\":\"cgg\"}", true, cg, sizeof cg);
  CHECK(cg[0] == '\0'); /* a CPU calibration times no GPU CG */
  cgm_tuner_device d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "NVIDIA H100");
  d.calibration_id = 7;
  snprintf(d.cg, sizeof d.cg, "classic");
  cgm_gpu_opts now = cgm_gpu_opts_default(); /* the single-reduction CG */
  CHECK(now.cg == CGM_CG_CGG && !strcmp(cgm_cg_variant_name(now.cg), "cgg"));
  CHECK(cgm_calibration_cg_stale(&d, &now, msg, sizeof msg));
  CHECK_MSG(strstr(msg, "calibration 7") && strstr(msg, "classic CG") && strstr(msg, "recalibrate"),
            "%s", msg);
  now.cg = CGM_CG_CLASSIC;
  CHECK(!cgm_calibration_cg_stale(&d, &now, msg, sizeof msg));
  snprintf(d.cg, sizeof d.cg, "cgg");
  CHECK(cgm_calibration_cg_stale(&d, &now, msg, sizeof msg));
  now.cg = CGM_CG_CGG;
  CHECK(!cgm_calibration_cg_stale(&d, &now, msg, sizeof msg));
  cgm_cg_variant v = CGM_CG_CGG;
  CHECK(!cgm_cg_variant_parse("bogus", &v) && v == CGM_CG_CGG); /* the CLI refuses it */
  CHECK(cgm_cg_variant_parse("classic", &v) && v == CGM_CG_CLASSIC);
  d.is_cpu = true;
  d.cg[0] = '\0';
  CHECK(!cgm_calibration_cg_stale(&d, &now, msg, sizeof msg));
}

/* An H100-like GPU: SpMV and vector curves rising to ~2.9 TB/s, the
 * exchange costing ~10 us plus its bytes at ~300 GB/s. */
static cgm_tuner_device gpu(int64_t mem) {
  cgm_tuner_device d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "test GPU");
  d.gpus = 4;
  d.mem_bytes = mem;
  for (int p = 0; p < 2; p++) {
    cgm_device_model *m = &d.model[p];
    m->width = p ? 4 : 8;
    for (int b = 0; b < 4; b++)
      m->spmv[b] = (cgm_sigmoid){20.0, 1.4, 2600.0}, m->have_spmv[b] = true;
    m->cg4 = (cgm_sigmoid){19.5, 1.4, 2900.0};
    m->cg5 = (cgm_sigmoid){19.0, 1.4, 2900.0};
    m->have_vec = true;
    for (int ex = 0; ex < 4; ex++)
      for (int g = 2; g <= 8; g++)
        m->xfer[ex][g] = (cgm_sigmoid){17.0, 1.44, 300.0}, m->have_xfer[ex][g] = true;
    d.have[p] = true;
  }
  return d;
}

static char last_why[512]; /* the reason of the last choose() */

static int choose(const cgm_csr *A, cgm_tuner_device *d, int *gpus, double *t) {
  cgm_features f;
  cgm_error err = {0};
  CHECK_OK(cgm_plan_features(A, &f, &err));
  cgm_tuner_opts o = cgm_tuner_opts_default();
  o.cusparse = false;
  cgm_candidate *c = NULL;
  int nc = 0;
  CHECK_OK(cgm_tuner_candidates(A, &f, d, 1, &o, &c, &nc, &err));
  char why[512];
  int best = cgm_tuner_choose(c, nc, d, why, sizeof why);
  fprintf(stderr, "%d candidates: %s\n", nc, why);
  snprintf(last_why, sizeof last_why, "%s", why);
  *gpus = best >= 0 ? c[best].gpus : -1;
  *t = best >= 0 ? c[best].time_per_iter_s : 0;
  /* Speed-ups are relative to one GPU of the same block size. */
  for (int i = 0; i < nc; i++)
    if (c[i].gpus == 1 && isfinite(c[i].time_per_iter_s)) CHECK_NEAR(c[i].speedup, 1.0, 1e-12);
  free(c);
  return best;
}

/* The total time the choice minimises: the setup model fitted on
 * synthetic samples recovers its line; single precision is offered only at
 * loose tolerances; mixed takes the ratio's iterations; with few
 * iterations the cheapest setup wins, with many the fastest iteration. */
static void total_time(void) {
  double b[5] = {1e8, 2e8, 4e8, 8e8, 1.6e9}, sec[5];
  for (int i = 0; i < 5; i++) sec[i] = 0.04 + 0.7e-9 * b[i] * (1.0 + 0.001 * (i % 2 ? 1 : -1));
  cgm_setup_model m = cgm_setup_fit(b, sec, 5, true);
  CHECK_MSG(m.samples == 5 && fabs(m.s_per_byte / 0.7e-9 - 1) < 0.01 &&
                fabs(m.fixed_s - 0.04) < 0.005,
            "fit: %g + %g b from %d", m.fixed_s, m.s_per_byte, m.samples);
  /* Setups from 20 KB to 1 GB: the fixed millisecond is recovered beside
   * the large layouts' slope (a plain least squares would leave it to the
   * large ones' noise), and a first solve's 5x (kernels loaded) is left out. */
  double wb[8], ws[8];
  for (int i = 0; i < 8; i++) {
    wb[i] = 2e4 * pow(4.5, i);
    ws[i] = (1e-3 + 0.4e-9 * wb[i]) * (1.0 + 0.02 * (i % 2 ? 1 : -1));
  }
  ws[0] *= 5;
  m = cgm_setup_fit(wb, ws, 8, true);
  CHECK_MSG(m.samples == 7 && fabs(m.fixed_s / 1e-3 - 1) < 0.05 &&
                fabs(m.s_per_byte / 0.4e-9 - 1) < 0.05,
            "fit: %g + %g b from %d", m.fixed_s, m.s_per_byte, m.samples);
  cgm_setup_model d = cgm_setup_model_default(true);
  m = cgm_setup_fit(b, sec, 2, true); /* too few */
  CHECK(m.samples == 0 && m.s_per_byte == d.s_per_byte);
  double same[3] = {1e8, 1e8, 1.5e8};
  m = cgm_setup_fit(same, sec, 3, true); /* one size says nothing of another */
  CHECK(m.samples == 0);
  CHECK(cgm_iterations_estimate(1000000, 1e-10) > cgm_iterations_estimate(1000000, 1e-6));
  CHECK(cgm_iterations_estimate(8000000, 1e-8) > cgm_iterations_estimate(1000000, 1e-8));

  cgm_error err = {0};
  cgm_csr A;
  CHECK_OK(cgm_gen_poisson3d(40, &A, &err));
  cgm_features f;
  CHECK_OK(cgm_plan_features(&A, &f, &err));
  cgm_tuner_device dv = gpu(80LL << 30);
  dv.gpus = 1;
  dv.setup = cgm_setup_model_default(true);
  cgm_tuner_opts o = cgm_tuner_opts_default();
  o.cusparse = false;
  o.precisions = 7u;
  o.iterations = 300;
  for (int pass = 0; pass < 2; pass++) {
    o.tol = pass ? 1e-3 : 1e-8;
    cgm_candidate *c = NULL;
    int nc = 0;
    CHECK_OK(cgm_tuner_candidates(&A, &f, &dv, 1, &o, &c, &nc, &err));
    int single = 0, mixed = 0;
    for (int i = 0; i < nc; i++) {
      single += c[i].precision == CGM_PREC_SINGLE;
      if (c[i].precision == CGM_PREC_MIXED) {
        mixed++;
        CHECK(c[i].iterations == 360); /* 300 x the default ratio 1.2 */
      } else {
        CHECK(c[i].iterations == 300);
      }
      CHECK_NEAR(c[i].total_s, c[i].setup_s + c[i].iterations * c[i].time_per_iter_s, 1e-12);
      CHECK(c[i].setup_s > 0);
    }
    CHECK_MSG(pass ? single > 0 : single == 0, "tol %g: %d single candidates", o.tol, single);
    CHECK(mixed > 0);
    const int best = cgm_tuner_choose(c, nc, &dv, NULL, 0);
    CHECK(best >= 0);
    /* the least total, mixed precision's raised by its margin */
    const double mb = c[best].precision == CGM_PREC_MIXED ? 1.0 / (1.0 - CGM_MIXED_MARGIN) : 1.0;
    for (int i = 0; best >= 0 && i < nc; i++) {
      const double mi = c[i].precision == CGM_PREC_MIXED ? 1.0 / (1.0 - CGM_MIXED_MARGIN) : 1.0;
      if (c[i].fits) CHECK(mb * c[best].total_s <= mi * c[i].total_s * 1.01);
    }
    free(c);
  }
  /* Mixed precision's replacements: a GPU's one in CGM_MIXED_REPLACE_EVERY iterations whatever
   * K; a CPU's (cgm_watch) at each tenfold fall and every 100 iterations, two double iterations
   * each: at K = 30 (36 mixed) 8.36 of them over 36 iterations, at K = 300 (360) 11.6 over 360. */
  for (int is_cpu = 0; is_cpu < 2; is_cpu++) {
    cgm_tuner_device d3 = dv;
    d3.is_cpu = is_cpu;
    double t[2][4][2] = {{{0}}}; /* [K 30, 300][block][double, mixed] */
    o.tol = 1e-8;
    for (int k = 0; k < 2; k++) {
      o.iterations = k ? 300 : 30;
      cgm_candidate *c = NULL;
      int nc = 0;
      CHECK_OK(cgm_tuner_candidates(&A, &f, &d3, 1, &o, &c, &nc, &err));
      for (int i = 0; i < nc; i++)
        if (c[i].gpus <= 1 && c[i].precision != CGM_PREC_SINGLE)
          t[k][cgm_block_index(c[i].block)][c[i].precision == CGM_PREC_MIXED] =
              c[i].time_per_iter_s;
      free(c);
    }
    for (int b = 0; b < 4; b++) {
      const double want = is_cpu ? 2.0 * t[0][b][0] * (8.36 / 36 - 11.6 / 360) : 0.0;
      CHECK_MSG(t[0][b][1] > 0 && fabs(t[0][b][1] - t[1][b][1] - want) <= 1e-9 * t[0][b][1],
                "cpu %d N = %d: mixed %g us at K = 30, %g at 300, the difference not %g", is_cpu,
                cgm_block_sizes[b], 1e6 * t[0][b][1], 1e6 * t[1][b][1], 1e6 * want);
    }
  }
  o.iterations = 300;
  /* The setup line of a layout built on the GPU (one GPU, N = 1: setup_dev)
   * and of one built on the host (every other block size), where fitted;
   * without a fitted setup_dev, the host's line for both. */
  for (int fitted = 0; fitted < 2; fitted++) {
    cgm_tuner_device d2 = dv;
    d2.setup = (cgm_setup_model){2.0, 0.0, 5};
    d2.setup_dev = (cgm_setup_model){fitted ? 1.0 : 3.0, 0.0, fitted ? 5 : 0};
    cgm_candidate *c = NULL;
    int nc = 0;
    o.tol = 1e-8;
    CHECK_OK(cgm_tuner_candidates(&A, &f, &d2, 1, &o, &c, &nc, &err));
    int seen = 0;
    for (int i = 0; i < nc; i++) {
      if (c[i].gpus != 1) continue;
      const double want = c[i].block == 1 && fitted ? 1.0 : 2.0;
      CHECK_MSG(c[i].setup_s == want, "fitted %d N = %d: setup %g, want %g", fitted, c[i].block,
                c[i].setup_s, want);
      seen++;
    }
    CHECK(seen >= 4);
    free(c);
  }
  /* Mixed's setup: double's layout's bytes at every N (double's values uploaded, the single copy
   * made on the device). */
  {
    cgm_tuner_device d2 = dv;
    d2.setup = d2.setup_dev = (cgm_setup_model){0.0, 1e-9, 5};
    cgm_candidate *c = NULL;
    int nc = 0, pairs = 0;
    CHECK_OK(cgm_tuner_candidates(&A, &f, &d2, 1, &o, &c, &nc, &err));
    for (int i = 0; i < nc; i++)
      for (int j = 0; j < nc; j++)
        if (c[i].gpus == 1 && c[j].gpus == 1 && c[i].block == c[j].block &&
            c[i].precision == CGM_PREC_MIXED && c[j].precision == CGM_PREC_DOUBLE) {
          pairs++;
          CHECK_MSG(c[i].setup_s == c[j].setup_s, "N = %d: mixed's setup %g s, double's %g s",
                    c[i].block, c[i].setup_s, c[j].setup_s);
        }
    CHECK(pairs == 4);
    free(c);
  }
  /* By hand: mixed 5% under double's total is not chosen, 15% under is. */
  cgm_candidate h[2];
  memset(h, 0, sizeof h);
  h[0].precision = CGM_PREC_DOUBLE;
  h[1].precision = CGM_PREC_MIXED;
  for (int i = 0; i < 2; i++) {
    h[i].fits = true;
    h[i].backend = CGM_BACKEND_CUDA;
    h[i].gpus = 1;
    h[i].time_per_iter_s = 1e-5;
  }
  h[0].total_s = 1.0;
  h[1].total_s = 0.95;
  char hw[512];
  CHECK(cgm_tuner_choose(h, 2, &dv, hw, sizeof hw) == 0);
  CHECK_MSG(strstr(hw, "mixed precision 0.95 s, not the 10% ahead"), "why: %s", hw);
  h[1].total_s = 0.85;
  CHECK(cgm_tuner_choose(h, 2, &dv, NULL, 0) == 1);
  /* the ratio the matrix's own runs measured: 5% ahead is enough, 2% is not */
  const cgm_tuner_device kept = dv;
  dv.mixed_ratio = 1.02, dv.mixed_measured = true;
  h[1].total_s = 0.95;
  CHECK(cgm_tuner_choose(h, 2, &dv, NULL, 0) == 1);
  h[1].total_s = 0.98;
  CHECK(cgm_tuner_choose(h, 2, &dv, hw, sizeof hw) == 0);
  CHECK_MSG(strstr(hw, "not the 3% ahead"), "why: %s", hw);
  dv = kept;
  /* Few iterations and a costly setup: the least setup wins; many
   * iterations: the fastest iteration. */
  o.tol = 1e-8;
  dv.setup.s_per_byte = 1e-6;
  double setup_min = INFINITY, iter_min = INFINITY;
  for (int pass = 0; pass < 2; pass++) {
    o.iterations = pass ? 1e9 : 1;
    cgm_candidate *c = NULL;
    int nc = 0;
    CHECK_OK(cgm_tuner_candidates(&A, &f, &dv, 1, &o, &c, &nc, &err));
    for (int i = 0; i < nc; i++) {
      setup_min = fmin(setup_min, c[i].setup_s);
      iter_min = fmin(iter_min, c[i].time_per_iter_s);
    }
    const int best = cgm_tuner_choose(c, nc, &dv, NULL, 0);
    CHECK(best >= 0);
    if (best >= 0 && pass == 0) CHECK(c[best].setup_s <= setup_min * 1.02);
    if (best >= 0 && pass == 1) CHECK(c[best].time_per_iter_s <= iter_min * 1.02);
    free(c);
  }
  cgm_csr_free(&A);
}

/* A CPU beside a GPU on a matrix whose long rows one GPU's plan puts
 * apart: the CPU's candidates are priced and counted on the CPU's one
 * layout (every block), the GPU's on the split one. */
static void cpu_beside_split(void) {
  cgm_error err = {0};
  cgm_csr A;
  CHECK_OK(cgm_gen_random_spd(6000, 6.0, CGM_ROWDIST_POWERLAW, 2.0, 5000, 11, &A, &err));
  cgm_features f;
  CHECK_OK(cgm_plan_features(&A, &f, &err));
  cgm_tuner_device d[2] = {gpu(80LL << 30), gpu(0)};
  d[1].is_cpu = true;
  d[1].gpus = 0;
  cgm_tuner_opts o = cgm_tuner_opts_default();
  o.cusparse = false;
  cgm_candidate *c = NULL;
  int nc = 0, cpus = 0;
  CHECK_OK(cgm_tuner_candidates(&A, &f, d, 2, &o, &c, &nc, &err));
  for (int i = 0; i < nc; i++) {
    if (c[i].gpus > 1) continue;
    cgm_plan_opts po = cgm_plan_opts_default();
    po.backend = c[i].backend;
    po.layout.n = c[i].block;
    po.precision = c[i].precision;
    cgm_plan p;
    CHECK_OK(cgm_plan_make(&A, &po, &p, &err));
    CHECK(c[i].backend == CGM_BACKEND_CPU ? p.seg[0].nparts == 1 : p.seg[0].part[1].long_rows);
    if (c[i].backend == CGM_BACKEND_CUDA) { /* the MBR grid: 256 threads, a warp a slice (two at
                                               N = 8 in 8 bytes), the long rows apart */
      const cgm_segment_shape sh = cgm_refined_shape(&p, 0);
      const int64_t lanes = c[i].block == 8 && cgm_precision_width(c[i].precision) == 8 ? 64 : 32;
      CHECK_MSG(sh.long_rows && sh.spmv_blocks == (p.seg[0].part[0].nslices * lanes + 255) / 256,
                "N=%d: %lld blocks of %lld slices", c[i].block, (long long)sh.spmv_blocks,
                (long long)p.seg[0].part[0].nslices);
    }
    CHECK_MSG(c[i].memory_bytes == p.device_bytes, "%s N=%d: %lld bytes, the plan %lld",
              cgm_backend_name(c[i].backend), c[i].block, (long long)c[i].memory_bytes,
              (long long)p.device_bytes);
    cpus += c[i].backend == CGM_BACKEND_CPU;
  }
  CHECK_MSG(cpus >= CGM_NBLOCKSIZES, "%d CPU candidates", cpus);
  free(c);
  cgm_csr_free(&A);
}

/* What-if (cgm_tuner_what_if): a GPU calibrated on 2 GPUs priced on 4 by
 * its own profile (its 2-GPU curves beyond 2), by another's (every count
 * from 2 on, as far as it measured, then its largest), or by the built-in
 * pcie-host: for every mode and count its documented 4 synchronisations of
 * 8 us plus the bytes at 55 GB/s. Its candidates past the GPUs present
 * and those its profile measured are what-ifs; a CPU is left alone. */
static void what_if(void) {
  const cgm_sigmoid two = {18.0, 1.2, 500.0};
  cgm_tuner_device d = gpu(0);
  d.gpus = 2;
  for (int p = 0; p < 2; p++)
    for (int ex = 0; ex < CGM_NEXCHANGES; ex++)
      for (int G = 2; G <= 8; G++) {
        d.model[p].xfer[ex][G] = d.paper[p].xfer[ex][G] = two;
        d.model[p].have_xfer[ex][G] = d.paper[p].have_xfer[ex][G] = G == 2;
      }
  d.paper[0].width = 8, d.paper[1].width = 4;
  cgm_tuner_device own = d, other = gpu(0), host = d, gone = d;
  cgm_tuner_what_if(&own, 4, 2, &own, "peer:test GPU");
  CHECK(own.gpus == 4 && own.what_if_from == 3 && !strcmp(own.interconnect, "peer:test GPU"));
  other.gpus = 1; /* calibrated on one, priced by d's profile */
  cgm_tuner_what_if(&other, 4, 4, &d, "peer:test GPU");
  CHECK(other.gpus == 4 && other.what_if_from == 2);
  for (int p = 0; p < 2; p++)
    for (int G = 2; G <= 4; G++) {
      CHECK(own.model[p].have_xfer[CGM_EXCHANGE_HALO][G] && own.paper[p].have_xfer[1][G]);
      CHECK(!memcmp(&own.model[p].xfer[CGM_EXCHANGE_P2P][G], &two, sizeof two));
      CHECK(!memcmp(&other.paper[p].xfer[CGM_EXCHANGE_HOST][G], &two, sizeof two));
    }
  CHECK(!own.model[0].have_xfer[0][5]);                   /* past the GPUs asked: as it was */
  cgm_tuner_what_if(&gone, 2, 0, &gone, "peer:test GPU"); /* none of it here */
  CHECK(gone.gpus == 2 && gone.what_if_from == 1);
  cgm_tuner_what_if(&host, 4, 1, NULL, CGM_PCIE_HOST);
  CHECK(host.what_if_from == 2 && !strcmp(host.interconnect, "pcie-host"));
  for (int p = 0; p < 2; p++)
    for (int k = 0; k < 2; k++)
      for (int G = 2; G <= 4; G++)
        for (double bytes = 8; bytes < 1e9; bytes *= 37) {
          const cgm_device_model *m = k ? &host.paper[p] : &host.model[p];
          const double w = m->width, t = cgm_sigmoid_time(&m->xfer[G % 4][G], bytes / w, w);
          CHECK_NEAR(t, 4 * 8e-6 + bytes / 55e9, 1e-9 * t);
        }
  /* the candidates: what-ifs from 2 GPUs on, their speed-ups over 1 GPU */
  cgm_error err = {0};
  cgm_csr A;
  CHECK_OK(cgm_gen_poisson3d(24, &A, &err));
  cgm_features f;
  CHECK_OK(cgm_plan_features(&A, &f, &err));
  cgm_tuner_opts o = cgm_tuner_opts_default();
  o.cusparse = false;
  cgm_candidate *c = NULL;
  int nc = 0, seen = 0;
  CHECK_OK(cgm_tuner_candidates(&A, &f, &host, 1, &o, &c, &nc, &err));
  for (int i = 0; i < nc; i++) {
    seen |= 1 << c[i].gpus;
    CHECK(c[i].what_if == (c[i].gpus >= 2) && isfinite(c[i].time_per_iter_s));
  }
  CHECK_MSG(seen == 0x1e, "GPU counts seen: %#x", seen);
  free(c);
  cgm_csr_free(&A);
  cgm_tuner_device cpu = gpu(0);
  cpu.is_cpu = true;
  cgm_tuner_what_if(&cpu, 8, 0, NULL, CGM_PCIE_HOST);
  CHECK(cpu.gpus == 4 && cpu.what_if_from == 0 && !cpu.interconnect[0]);
}

int main(void) {
  what_if();
  total_time();
  cpu_beside_split();
  cgm_error err = {0};
  cgm_csr A;
  int g;
  double t;
  /* Tiny: synchronising 4 GPUs costs more than the whole iteration. */
  cgm_tuner_device big = gpu(80LL << 30);
  CHECK_OK(cgm_gen_poisson3d(16, &A, &err));
  CHECK(choose(&A, &big, &g, &t) >= 0);
  CHECK_MSG(g == 1, "a 4096-row matrix picked %d GPUs", g);
  cgm_csr_free(&A);
  /* Fits only across 4: each GPU holds 40 MB, a 1M-row Poisson needs
   * ~70-100 MB on one, ~25 MB a GPU on 4. */
  cgm_tuner_device small = gpu(40LL << 20);
  CHECK_OK(cgm_gen_poisson3d(100, &A, &err));
  CHECK(choose(&A, &small, &g, &t) >= 0);
  CHECK_MSG(g == 4, "a matrix that fits only on 4 GPUs picked %d", g);
  /* With room on one GPU, 4 still win at 10^6 rows under these curves. */
  CHECK(choose(&A, &big, &g, &t) >= 0 && g >= 2);
  /* Nothing fits: no choice, and the reason says so. */
  cgm_tuner_device none = gpu(1 << 20);
  CHECK(choose(&A, &none, &g, &t) == -1);
  CHECK_MSG(strstr(last_why, "do not fit in memory, 0 have no converged curve"), "%s", last_why);
  /* No curves: no choice, and the reason says which. */
  cgm_tuner_device nocurve = gpu(0);
  for (int p = 0; p < 2; p++)
    for (int b = 0; b < 4; b++) nocurve.model[p].have_spmv[b] = false;
  CHECK(choose(&A, &nocurve, &g, &t) == -1);
  CHECK_MSG(strstr(last_why, " 0 of ") && strstr(last_why, "have no converged curve"), "%s",
            last_why);
  cgm_csr_free(&A);

  /* Monotone in the bytes, even where Eq. 5 is not (sigma ln 2 < 1). */
  cgm_device_model m = gpu(0).model[0];
  m.spmv[0] = (cgm_sigmoid){18.0, 0.6, 100.0};
  double prev = 0;
  for (double rows = 16; rows < 1e7; rows *= 1.3) {
    cgm_segment_shape s = {(int64_t)rows, rows * 7 * 12};
    double tt = cgm_refined_segment_time(&m, 1, &s);
    CHECK_MSG(tt >= prev, "time fell from %g to %g at %g rows", prev, tt, rows);
    prev = tt;
  }
  /* Exactly Eq. 5 above the floor: one kernel's share checked by hand. */
  cgm_device_model one;
  memset(&one, 0, sizeof one);
  one.width = 8;
  one.spmv[0] = (cgm_sigmoid){10.0, 2.0, 100.0};
  one.have_spmv[0] = true;
  one.cg4 = one.cg5 = (cgm_sigmoid){10.0, 2.0, 1e12}; /* vector kernels ~free */
  one.have_vec = true;
  cgm_segment_shape s1 = {1, 8.0 * 65536}; /* m = 65536 = 2^16: B = 100 / (1 + e^-3) */
  double want = 8.0 * 65536 / (100.0 / (1.0 + exp(-3.0)) * 1e9);
  CHECK_NEAR(cgm_refined_segment_time(&one, 1, &s1), want, 1e-6);
  /* A CPU's foot (the smallest size timed and its measured time): under
   * it the time scales with the bytes from the measured one; at it, the
   * measured time; two octaves over it, the fit again; monotone
   * throughout, whether the fit lies over the foot's measurement (0.2 us
   * measured at 2^12, where the fit says 0.45 us) or under it (3 us). */
  for (int k = 0; k < 2; k++) {
    const double tf = k ? 3e-6 : 0.2e-6;
    cgm_device_model c = one;
    c.cg4 = c.cg5 = (cgm_sigmoid){10.0, 2.0, 1e15}; /* vector kernels ~free */
    c.spmv_foot[0] = (cgm_foot){4096.0, tf};
    cgm_segment_shape lo = {1, 8.0 * 1024}, at = {1, 8.0 * 4096}, far = {1, 8.0 * 65536};
    CHECK_NEAR(cgm_refined_segment_time(&c, 1, &lo), tf / 4, 1e-3 * tf);
    CHECK_NEAR(cgm_refined_segment_time(&c, 1, &at), tf, 1e-3 * tf);
    cgm_device_model plain = c;
    plain.spmv_foot[0] = (cgm_foot){0.0, 0.0};
    CHECK_NEAR(cgm_refined_segment_time(&c, 1, &far), cgm_refined_segment_time(&plain, 1, &far),
               1e-12);
    double prev = 0;
    for (double m = 512; m < 70000; m *= 1.1) {
      cgm_segment_shape sm = {1, 8.0 * m};
      const double tt = cgm_refined_segment_time(&c, 1, &sm);
      CHECK_MSG(tt >= prev, "the foot's time fell from %g to %g at m = %g", prev, tt, m);
      prev = tt;
    }
  }
  /* A missing curve gives NaN, not a guess. */
  one.have_spmv[0] = false;
  CHECK(isnan(cgm_refined_segment_time(&one, 1, &s1)));
  /* The iteration curve replaces the kernel sum: Eq. 5 over the
   * iteration's bytes (SpMV + 11 vector passes); the kernel curves are not
   * read (the SpMV's is gone). Block size 4: index 2. */
  one.iter[2] = (cgm_sigmoid){16.0, 1.0, 200.0};
  one.have_iter[2] = true;
  cgm_segment_shape s4 = {4096, 8.0 * 100000, 3};
  double bytes = 8.0 * 100000 + 11.0 * 4096 * 8, mi = bytes / 8;
  double t_iter = bytes / (200.0 / (1.0 + exp(-(log2(mi) - 16.0))) * 1e9);
  CHECK_NEAR(cgm_refined_segment_time(&one, 4, &s4), t_iter, 1e-9 * t_iter);
  CHECK(isnan(cgm_refined_segment_time(&one, 1, &s4))); /* no curve for N = 1 */
  /* The longest row bounds it from below: with a row curve T = a + c L
   * (Eq. 3 with sigma = 1 / ln 2, mu = log2(a / c), nu = w / c), 3 blocks
   * of 16 elements are under the iteration's time, 3000 blocks are not. */
  const double a = 10e-6, c = 0.12e-6 / 16; /* s, s per element of the row */
  one.row[2] = (cgm_sigmoid){log2(a / c), 1.0 / M_LN2, 8.0 / c * 1e-9};
  one.have_row[2] = true;
  CHECK_NEAR(cgm_refined_segment_time(&one, 4, &s4), t_iter > a + c * 48 ? t_iter : a + c * 48,
             1e-9);
  s4.max_row = 3000;
  CHECK_NEAR(cgm_refined_segment_time(&one, 4, &s4), a + c * 48000, 1e-6 * (a + c * 48000));
  /* With a band curve (every row long: T = a + 2.5 c L), the walk moves
   * from the row curve to the band curve by the segment's walking against
   * the band's, rows mean_row / (CGM_BAND_ROWS max_row): 4096 rows of 3000
   * blocks are half the band's 8192 (half-way), 4096 of 6000 on average
   * or more are all of it; a lone long row (mean 3) stays near the row
   * curve, no mean (0) is the row curve. */
  one.band[2] = (cgm_sigmoid){log2(a / (2.5 * c)), 1.0 / M_LN2, 8.0 / (2.5 * c) * 1e-9};
  one.have_band[2] = true;
  const double ta = a + c * 48000, tb = a + 2.5 * c * 48000;
  CHECK(CGM_BAND_ROWS == 8192 && s4.rows == 4096);
  const int64_t rows[] = {4096, 4096, 4096, 4096, 8192, 16384};
  const double means[] = {0, 3, 1500, 3000, 3000, 3000};
  const double shares[] = {0, 0.0005, 0.25, 0.5, 1, 1};
  for (int i = 0; i < 6; i++) {
    s4.rows = rows[i];
    s4.mean_row = means[i];
    double want_t = ta + shares[i] * (tb - ta);
    double t = cgm_refined_segment_time(&one, 4, &s4);
    CHECK_MSG(fabs(t - want_t) <= 1e-6 * want_t, "rows %lld mean %g: %g s, want %g",
              (long long)rows[i], means[i], t, want_t);
  }
  /* Under load (more walking than the band's: a band-load fraction of 0.3)
   * twice the band's walking adds 0.3 x log(2) / log(4) of the band's
   * time, 64 times it the cap of twice 0.3; the band's own walking and
   * less add nothing. The fit recovers the fraction from such a time, and
   * gives 0 for a time the model without it already reaches. */
  one.band_load[2] = 0.3;
  one.have_band_load[2] = true;
  const int64_t lrows[] = {8192, 16384, 8192 * 64};
  const double lextra[] = {0, 0.3 * 0.5, 0.6};
  s4.mean_row = 3000;
  for (int i = 0; i < 3; i++) {
    s4.rows = lrows[i];
    const double t = cgm_refined_segment_time(&one, 4, &s4), want_t = tb * (1 + lextra[i]);
    CHECK_MSG(fabs(t - want_t) <= 1e-6 * want_t, "rows %lld under load: %g s, want %g",
              (long long)lrows[i], t, want_t);
  }
  s4.rows = 16384;
  double frac = 0, tl = cgm_refined_segment_time(&one, 4, &s4);
  cgm_error lerr = {0};
  CHECK_OK(cgm_fit_band_load(&one, 4, &s4, &tl, 1, &frac, &lerr));
  CHECK_MSG(fabs(frac - 0.3) < 1e-6, "band-load fraction %g", frac);
  tl = 0.9 * tb;
  CHECK_OK(cgm_fit_band_load(&one, 4, &s4, &tl, 1, &frac, &lerr));
  CHECK(frac == 0.0);
  CHECK(cgm_fit_band_load(&one, 8, &s4, &tl, 1, &frac, &lerr) == CGM_EINPUT); /* no band curve */
  one.have_band_load[2] = false;
  s4.rows = 4096;
  /* Past one wave of SpMV blocks (4 an SM) the stream and the walk add in quadrature over their own
   * floors (the vectors' time, the band's); within a wave, or with no SM count, the larger. */
  {
    cgm_segment_shape sw = {.rows = 16384, .max_row = 3000, .mean_row = 3000};
    const double tr = cgm_refined_segment_time(&one, 4, &sw);
    const cgm_segment_shape vec = {.rows = 16384}, flo = {.rows = CGM_BAND_ROWS},
                            str = {.rows = 16384, .spmv_bytes = 1.5e8};
    const double tv = cgm_refined_segment_time(&one, 4, &vec),
                 tf = cgm_refined_segment_time(&one, 4, &flo),
                 ts = cgm_refined_segment_time(&one, 4, &str);
    CHECK(tf < tv && tv < ts && ts < tr && tr < 2 * ts); /* both limits count */
    sw.spmv_bytes = str.spmv_bytes;
    const double want_q = tv + hypot(ts - tv, tr - tf);
    const int64_t blocks[] = {0, 16, 17, 100000};
    for (int k = 0; k < 2; k++) {
      one.sms = 4 * k; /* 0: unknown; 4: a wave of 16 blocks */
      for (int i = 0; i < 4; i++) {
        sw.spmv_blocks = blocks[i];
        const double t = cgm_refined_segment_time(&one, 4, &sw);
        const double want_t = k && blocks[i] > 16 ? want_q : tr;
        CHECK_MSG(fabs(t - want_t) <= 1e-9 * want_t, "sms %d, %lld blocks: %g s, want %g", one.sms,
                  (long long)blocks[i], t, want_t);
      }
    }
    sw.long_rows = true; /* the hubs' kernel walks beside, not queued: the larger */
    CHECK_NEAR(cgm_refined_segment_time(&one, 4, &sw), tr, 1e-9 * tr);
    one.sms = 0;
  }
  /* A band curve under the row curve never lowers the floor. */
  cgm_sigmoid keep = one.band[2];
  one.band[2] = (cgm_sigmoid){log2(a / (0.5 * c)), 1.0 / M_LN2, 8.0 / (0.5 * c) * 1e-9};
  s4.mean_row = 3000;
  CHECK_NEAR(cgm_refined_segment_time(&one, 4, &s4), ta, 1e-6 * ta);
  one.band[2] = keep;
  /* The band curve alone (no row curve) is the walk's floor by its share:
   * half the band's walking, half its time (above the iteration's). */
  one.have_row[2] = false;
  s4.mean_row = 3000;
  CHECK_NEAR(cgm_refined_segment_time(&one, 4, &s4), 0.5 * tb, 1e-6 * tb);
  one.have_row[2] = true;
  one.have_band[2] = false;
  /* A scattered longest row walks slower by scatter x coefficient x steps
   * (a lone row: mean 3); in order, or with no coefficient, as before. */
  s4.mean_row = 3;
  s4.max_row = 3000;
  const double lone = cgm_refined_segment_time(&one, 4, &s4), ksc = 0.05e-6;
  one.scatter_coef[2] = ksc;
  one.have_scatter_coef[2] = true;
  CHECK_NEAR(cgm_refined_segment_time(&one, 4, &s4), lone, 1e-9 * lone); /* scatter 0 */
  const double scat[] = {0.25, 1.0};
  for (int i = 0; i < 2; i++) {
    s4.row_scatter = scat[i];
    const double want_t = lone + scat[i] * ksc * 3000;
    CHECK_NEAR(cgm_refined_segment_time(&one, 4, &s4), want_t, 1e-9 * want_t);
  }
  /* The fit recovers a known coefficient from iterations the model made
   * with it (walk-bound and not, several scatters), and 0 where scattered
   * rows walk as fast as in order. */
  cgm_segment_shape fs[4];
  double ft[4];
  const int32_t fl[] = {3000, 600, 40, 3000};
  const double fsc[] = {1.0, 0.9, 1.0, 0.5};
  for (int i = 0; i < 4; i++) {
    fs[i] = s4;
    fs[i].max_row = fl[i];
    fs[i].row_scatter = fsc[i];
    ft[i] = cgm_refined_segment_time(&one, 4, &fs[i]);
  }
  double kfit = -1;
  cgm_error ferr = {0};
  CHECK_OK(cgm_fit_scatter_coef(&one, 4, false, fs, ft, 4, &kfit, &ferr));
  CHECK_MSG(fabs(kfit - ksc) <= 1e-3 * ksc, "fitted %g s a step, made with %g", kfit, ksc);
  one.have_scatter_coef[2] = false;
  for (int i = 0; i < 4; i++) ft[i] = cgm_refined_segment_time(&one, 4, &fs[i]);
  CHECK_OK(cgm_fit_scatter_coef(&one, 4, false, fs, ft, 4, &kfit, &ferr));
  CHECK_MSG(kfit <= 1e-3 * ksc, "fitted %g s a step where scatter costs nothing", kfit);
  /* The bands' term: a step's extra moves from the arrows' to the bands'
   * by the warp's share; fitted with the arrows' kept, it is recovered. */
  one.scatter_coef[2] = ksc;
  one.have_scatter_coef[2] = true;
  one.band_scatter_coef[2] = 4 * ksc;
  one.have_band_scatter_coef[2] = true;
  s4.row_scatter = 1.0;
  s4.warp_share = 0.5;
  CHECK_NEAR(cgm_refined_segment_time(&one, 4, &s4), lone + 2.5 * ksc * 3000,
             1e-9 * (lone + 2.5 * ksc * 3000));
  for (int i = 0; i < 4; i++) {
    fs[i].warp_share = i * 0.3;
    ft[i] = cgm_refined_segment_time(&one, 4, &fs[i]);
  }
  CHECK_OK(cgm_fit_scatter_coef(&one, 4, true, fs, ft, 4, &kfit, &ferr));
  CHECK_MSG(fabs(kfit - 4 * ksc) <= 1e-3 * ksc, "bands: fitted %g s a step, made with %g", kfit,
            4 * ksc);
  /* A warp of scattered walkers walks at the band's pace whatever the
   * band's share (row_scatter^2 x warp_share of the way there): a lone
   * hub's warp (mean 3) full of scattered rows. */
  one.band[2] = (cgm_sigmoid){log2(a / (2.5 * c)), 1.0 / M_LN2, 8.0 / (2.5 * c) * 1e-9};
  one.have_band[2] = true;
  one.band_scatter_coef[2] = ksc; /* one extra a step: band and arrow alike */
  s4.rows = 4096;
  s4.mean_row = 3;
  s4.max_row = 3000;
  const double walks[][2] = {{1.0, 1.0}, {0.5, 1.0}, {1.0, 0.0}};
  for (int i = 0; i < 3; i++) {
    s4.row_scatter = walks[i][0];
    s4.warp_share = walks[i][1];
    const double fb = walks[i][0] * walks[i][0] * walks[i][1], fr = 4096.0 * 3 / (8192.0 * 3000);
    const double want_t = ta + (fb > fr ? fb : fr) * (tb - ta) + walks[i][0] * ksc * 3000;
    CHECK_NEAR(cgm_refined_segment_time(&one, 4, &s4), want_t, 1e-9 * want_t);
  }
  one.have_scatter_coef[2] = false; /* an older calibration: the band's share alone */
  s4.row_scatter = s4.warp_share = 1.0;
  CHECK_NEAR(cgm_refined_segment_time(&one, 4, &s4), ta + 4096.0 * 3 / (8192.0 * 3000) * (tb - ta),
             1e-9 * tb);
  one.have_band[2] = false;
  one.have_scatter_coef[2] = one.have_band_scatter_coef[2] = false;
  CHECK(cgm_fit_scatter_coef(&one, 4, true, fs, ft, 4, &kfit, &ferr) == CGM_EINPUT);
  /* no row curve at that block size, or a bad time: refused */
  CHECK(cgm_fit_scatter_coef(&one, 2, false, fs, ft, 4, &kfit, &ferr) == CGM_EINPUT);
  ft[1] = 0;
  CHECK(cgm_fit_scatter_coef(&one, 4, false, fs, ft, 4, &kfit, &ferr) == CGM_EINPUT);
  stale_cg();
  TEST_MAIN_END();
}
