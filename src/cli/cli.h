/* Shared by the subcommands: exit codes, messages, loading inputs. */
#ifndef PLUMB_CLI_H
#define PLUMB_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "plumb/analysis.h"
#include "plumb/formats.h"
#include "plumb/profile.h"

enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

/* "plumb: message" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A library error: print it and return the exit status it calls for. */
int cli_fail(const plumb_error *err);
/* A usage error: print it and a hint, return EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Usage errors with "did you mean": an unknown WHAT (view, format...)
 * among the names of list ("a, b, c"); an unknown option among longopts;
 * an unknown command. Each prints and returns EXIT_USAGE. */
struct option;
int cli_unknown_word(const char *cmd, const char *what, const char *word, const char *list);
int cli_unknown_option(const char *cmd, const char *arg, const struct option *longopts);
int cli_unknown_command(const char *word, const char *const *names, size_t n);

/* Read and merge the files into one profile. fmt_out gets the first file's
 * format. Returns NULL after filling err. */
plumb_profile *cli_load(char *const *paths, int n, plumb_format *fmt_out, plumb_error *err);
/* The detail a command shows: every address; lines (readers may merge the
 * instructions of a line: big Callgrind files load faster); the inputs
 * view of one whole profile (a .plumb store may read the routines it keeps
 * instead of every point); functions only (the .plumb store may read its
 * call graph summed by function); the flat view of one whole profile (a
 * .plumb store may read the flat view's metrics it keeps instead of any
 * cost); or either of those two, the profile's default view. */
typedef enum cli_detail {
	CLI_ADDRESSES, CLI_LINES, CLI_INPUTS, CLI_FUNCTIONS, CLI_FLAT, CLI_DEFAULT_VIEW
} cli_detail;
/* Does a spec of l name a file or a line (which function-level detail
 * cannot match)? */
bool cli_names_position(const plumb_symspec_list *l);
/* The same, reading only the detail asked for. An empty Callgrind base
 * file stands for its thread/dump siblings. */
plumb_profile *cli_load_ex(char *const *paths, int n, cli_detail detail, plumb_format *fmt_out,
			   plumb_error *err);

/* --exe FILE: the executable gmon.out inputs belong to (NULL: a.out next
 * to each gmon file). Used by every later cli_load. */
void cli_set_executable(const char *path);
/* --event-name, --unit: what the numbers of folded stacks count (NULL: keep). */
void cli_set_folded_event(const char *name, const char *unit);

/* The progress line of long reads (src/cli/progress.c): cli_load sets it
 * up when stderr is a terminal and CI is not set; --quiet turns it off. */
void cli_set_quiet(bool quiet);
void cli_progress_setup(plumb_read_opts *ro);
/* The same for writes: wp->fn stays NULL when no line is wanted. */
void cli_progress_write_setup(plumb_write_progress *wp);

/* Parse a non-negative integer / percentage option; -1 on bad text. */
int cli_parse_size(const char *s, size_t *out);
int cli_parse_pct(const char *s, double *out);

/* Output decisions for text on stdout. */
bool cli_use_color(const char *when); /* when: "auto", "always", "never" */
unsigned cli_terminal_width(void);

/* The pager (src/cli/pager.c): start it before writing long text to
 * stdout (nothing happens unless stdout is a terminal); main waits for it
 * once stdout is closed. While it runs, stdout is a pipe but still counts
 * as the terminal it was for colours and width. */
void cli_pager_disable(void); /* --no-pager */
void cli_pager_start(void);
void cli_pager_finish(void);
bool cli_stdout_is_terminal(void);
unsigned cli_paged_width(void); /* 0: not paging */

int cmd_report(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_gprof(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_cc(int argc, char **argv);
int cmd_cxx(int argc, char **argv);
int cmd_diff(int argc, char **argv);

#endif
