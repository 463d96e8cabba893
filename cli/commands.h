/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The subcommands; each returns the process exit code (docs/cli.md). */
#ifndef CGM_CLI_COMMANDS_H
#define CGM_CLI_COMMANDS_H

int cmd_info(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_devices(int argc, char **argv);

#endif
