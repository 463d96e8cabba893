/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The command line as tables: each command declares its options once, and the parser, --help, the
 * usage, the man pages and the completions are made from them (`cgmodel __options` prints them as
 * JSON). A value is converted by its kind only; its range and its fit with the others are the
 * library's to check (pipeline/request.h), but for the few options no library call sees, whose row
 * gives a range. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

typedef enum {
  CLI_TRUE,   /* a flag: key = true */
  CLI_FALSE,  /* a flag: key = false (--no-record) */
  CLI_CONST,  /* a flag: key = the string `values` (--max: fit = "max") */
  CLI_INT,    /* an integer */
  CLI_OPTINT, /* a flag with an optional integer (--monitor [K]): alone, `values` */
  CLI_REAL,   /* a number */
  CLI_STRING,
  CLI_CHOICE, /* one of `values` ("cpu|cuda|cusparse"); a numeric one is sent as a number */
  CLI_LIST,   /* a comma-separated list of `values`, checked by the command */
  CLI_PATH,   /* a file */
} cli_kind;

typedef struct cli_opt {
  const char *flag, *key; /* "--tol", and its request key "tol" (JSON, --options, Python) */
  cli_kind kind;
  const char *values;  /* CHOICE, LIST: "a|b|c"; CONST: the value set; OPTINT: given alone */
  const char *metavar; /* "T" (a choice without one shows its values) */
  const char *dflt;    /* the default as help says it; 0: none worth saying */
  const char *help;
  double lo, hi; /* INT, REAL: the range, for an option no library call checks (0, 0: none) */
  bool many;     /* may be repeated: the values make an array */
} cli_opt;

/* Rows most commands have. The keys json, out (-o), options and verbose
 * are the command's own, never part of its request (cli_parsed.local). */
#define CLI_JSON                                                                                   \
  { "--json", "json", CLI_TRUE, 0, 0, 0, "one JSON object on stdout" }
#define CLI_DB                                                                                     \
  { "--db", "db", CLI_PATH, 0, "FILE", "$CGMODEL_DB, else XDG's", "the database" }
#define CLI_OPTIONS                                                                                \
  { "--options", "options", CLI_PATH, 0, "FILE", 0, "a request: JSON of the keys" }

struct cli_parsed;

typedef struct cli_command {
  const char *name;
  const char *args;           /* the positional arguments of the usage line: "A.mtx" */
  const char *words;          /* the first argument's words, completed: "list|show|export" */
  const char *summary;        /* what it does, in one line (--help, the usage, the man pages) */
  const cli_opt *opts, *more; /* each ended by a row without flag; more: a shared table */
  int (*body)(const struct cli_parsed *p);
  /* NULL: cli_run; else what runs before the parse (solve: MPI's start) */
  int (*start)(const struct cli_command *c, int argc, char **argv);
} cli_command;

typedef struct cli_parsed {
  cJSON *req;   /* the request: the table's keys, an --options file under them */
  cJSON *local; /* the command's own options: json, out, options, verbose */
  const char *pos[16];
  int npos;
} cli_parsed;

/* Set only by the command-line fuzzer (tests/fuzz/fuzz_cli.c): every
 * command returns 0 once its arguments are parsed and checked, before it
 * reads a matrix, opens the database or touches a device. */
extern bool cli_parse_only;

/* The matrix cache's options (solve, predict): --cache-dir, --no-cache, --cache-max. */
extern const cli_opt cli_cache_table[];

/* The i-th option of c (its opts, then more); NULL past the last. */
const cli_opt *cli_opt_at(const cli_command *c, int i);
/* Parses argv[1..] by c's tables, runs c->body: the command's exit code. */
int cli_run(const cli_command *c, int argc, char **argv);
/* Runs a command: c->start or cli_run. */
int cli_main(const cli_command *c, int argc, char **argv);
/* --help of c, from its tables. */
void cli_help(const cli_command *c, FILE *f);

/* Whether a key is the command's own (json, out, options, verbose). */
bool cli_own(const char *key);
/* A key's string, number or truth in req or local; dflt when absent. */
const char *cli_str(const cJSON *o, const char *key, const char *dflt);
double cli_num(const cJSON *o, const char *key, double dflt);
bool cli_true(const cJSON *o, const char *key);
