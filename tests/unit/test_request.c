/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The request parsers (pipeline/request.c), which the bindings and the
 * command line share: every key typed and named in its errors, unknown keys
 * refused, defaults as documented; the request a solve ran, parsed again,
 * runs the same configuration (solved twice on a Poisson grid, the second
 * from the first's request). */
#include "cgmodel/pipeline.h"
#include "pipeline/request.h"
#include "test_util.h"

/* The request parsed from text; its error message in err. */
static cgm_status solve_of(const char *text, cgm_run_solve_opts *o, cJSON **req, cgm_error *err) {
  *req = cJSON_Parse(text);
  return cgm_solve_request(*req, o, err);
}

static void check_refused(const char *text, const char *msg) {
  cgm_run_solve_opts o;
  cgm_error err = {0};
  cJSON *req;
  cgm_status st = solve_of(text, &o, &req, &err);
  CHECK_MSG(st == CGM_EINPUT && strstr(err.msg, msg), "%s: %d '%s', want '%s'", text, (int)st,
            err.msg, msg);
  cJSON_Delete(req);
}

static void solve_keys(void) {
  cgm_run_solve_opts o;
  cgm_error err = {0};
  cJSON *req;
  CHECK_OK(solve_of("{}", &o, &req, &err));
  CHECK(o.record && !o.autotune && o.solve.reorder == CGM_REORDER_AUTO && !o.solve.monitor);
  CHECK(o.cache.max_bytes == CGM_CACHE_DEFAULT_MAX_BYTES && !o.constraints.backend_given);
  cJSON_Delete(req);
  CHECK_OK(solve_of("{\"backend\": \"cpu\", \"block\": 4, \"tol\": 1e-6, \"monitor\": 5, "
                    "\"rhs\": \"b.mtx\", \"no_cache\": true, \"cache_dir\": \"c\", "
                    "\"partition\": null}",
                    &o, &req, &err));
  CHECK(o.solve.backend == CGM_BACKEND_CPU && o.constraints.backend_given && !o.backend_default);
  CHECK(o.solve.layout.n == 4 && o.solve.tol == 1e-6 && o.solve.monitor_every == 5);
  CHECK(o.solve.monitor && !strcmp(o.rhs, "b.mtx") && !o.cache.dir);
  cJSON_Delete(req);
  check_refused("{\"tols\": 1}", "options: unknown key 'tols'");
  check_refused("{\"gpus\": \"two\"}", "options: 'gpus' is not an integer");
  check_refused("{\"gpus\": 2.5}", "options: 'gpus' is not an integer");
  check_refused("{\"gpus\": 1e12}", "options: 'gpus' is not an integer");
  check_refused("{\"tol\": \"1e-6\"}", "options: 'tol' is not a number");
  check_refused("{\"record\": 1}", "options: 'record' is not a boolean");
  check_refused("{\"backend\": \"gpu\"}", "backend: 'gpu' is not cpu, cuda or cusparse");
  check_refused("{\"auto\": true, \"block\": 4}", "drop block=4");
  check_refused("{\"auto\": true, \"exchange\": \"p2p\"}", "drop exchange=p2p");
  check_refused("{\"monitor\": -1}", "monitor -1:");
  check_refused("[1]", "options: not a JSON object");
}

static void predict_and_calibrate_keys(void) {
  cgm_predict_opts p;
  cgm_calibrate_opts c;
  const char *db;
  cgm_error err = {0};
  cJSON *req = cJSON_Parse("{\"block\": \"auto\", \"precision\": \"double,mixed\", \"db\": "
                           "\"x.db\", \"exchange\": \"all\", \"devices\": \"cpu\"}");
  CHECK_OK(cgm_predict_request(req, &p, &db, &err));
  CHECK(p.tuner.block == 0 && !strcmp(db, "x.db") && !strcmp(p.kind, "cpu"));
  CHECK(p.tuner.precisions == ((1u << CGM_PREC_DOUBLE) | (1u << CGM_PREC_MIXED)));
  CHECK(p.tuner.exchanges == (1u << CGM_NEXCHANGES) - 1);
  /* the request as run, parsed again: the same options */
  cJSON *ran = cgm_predict_request_json(&p);
  cgm_predict_opts q;
  CHECK_OK(cgm_predict_request(ran, &q, &db, &err));
  CHECK(q.tuner.block == p.tuner.block && q.tuner.precisions == p.tuner.precisions &&
        q.tuner.exchanges == p.tuner.exchanges && !strcmp(q.kind, "cpu") && !db &&
        q.tuner.tol == CGM_DEFAULT_TOL && q.tuner.cusparse);
  cJSON_Delete(ran);
  cJSON_Delete(req);
  static const char *const bad[][2] = {
      {"{\"block\": 3}", "block 3: the block size is 1, 2, 4 or 8"},
      {"{\"gpus\": 9}", "gpus 9:"},
      {"{\"tol\": 2}", "tol 2:"},
      {"{\"precision\": \"double,double\"}", "precision: 'double,double' is not a list"},
      {"{\"model\": \"exact\"}", "model: 'exact' is not refined or paper"}};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    req = cJSON_Parse(bad[k][0]);
    cgm_status st = cgm_predict_request(req, &p, &db, &err);
    CHECK_MSG(st == CGM_EINPUT && strstr(err.msg, bad[k][1]), "%s: '%s'", bad[k][0], err.msg);
    cJSON_Delete(req);
  }
  req = cJSON_Parse("{\"precision\": \"mixed\"}");
  CHECK(cgm_calibrate_request(req, &c, &db, &err) == CGM_EINPUT && strstr(err.msg, "precision"));
  cJSON_Delete(req);
  req = cJSON_Parse("{\"precision\": \"single\", \"threads\": 2, \"devices\": \"cpu\"}");
  CHECK_OK(cgm_calibrate_request(req, &c, &db, &err));
  CHECK(c.precisions == 1u << CGM_PREC_SINGLE && c.threads == 2 && !strcmp(c.devices, "cpu"));
  cJSON_Delete(req);
  unsigned set = 0;
  CHECK(cgm_precisions_parse("both", false, &set) && set == 3);
  CHECK(!cgm_precisions_parse("double,,single", true, &set));
  CHECK(!cgm_precisions_parse("", true, &set) && !cgm_precisions_parse("mixed", false, &set));
}

/* A solve, and the same from the request it ran: the same configuration. */
static void replay(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_poisson2d(24, &A, &err));
  cgm_run_solve_opts o, o2;
  cJSON *req, *req2;
  CHECK_OK(solve_of("{\"backend\": \"cpu\", \"block\": 2, \"precision\": \"mixed\", \"tol\": "
                    "1e-9, \"precond\": \"block\", \"reorder\": \"rcm\", \"record\": false}",
                    &o, &req, &err));
  o.csr = &A;
  cgm_solve_report r, r2;
  CHECK_OK(cgm_run_solve(&o, &r, &err));
  cJSON *ran = cgm_solve_request_json(&o, &r);
  char *text = cJSON_PrintUnformatted(ran);
  CHECK_OK(solve_of(text, &o2, &req2, &err));
  o2.csr = &A;
  CHECK_OK(cgm_run_solve(&o2, &r2, &err));
  CHECK_MSG(r.opts.backend == r2.opts.backend && r.opts.precision == r2.opts.precision &&
                r.opts.layout.n == r2.opts.layout.n && r.opts.layout.bx == r2.opts.layout.bx &&
                r.opts.gpus == r2.opts.gpus && r.opts.tol == r2.opts.tol &&
                r.opts.maxiter == r2.opts.maxiter && r.opts.precond == r2.opts.precond &&
                r.result.precond_block == r2.result.precond_block &&
                r.opts.reorder == CGM_REORDER_RCM && r2.opts.reorder == CGM_REORDER_RCM &&
                !o2.record,
            "the replayed request %s ran another configuration", text);
  CHECK(r.result.converged && r2.result.converged && r.result.iterations == r2.result.iterations);
  cJSON_free(text);
  cJSON_Delete(ran);
  cJSON_Delete(req);
  cJSON_Delete(req2);
  cgm_solve_report_free(&r);
  cgm_solve_report_free(&r2);
  cgm_csr_free(&A);
}

int main(void) {
  solve_keys();
  predict_and_calibrate_keys();
  replay();
  TEST_MAIN_END();
}
