/* Long text on a terminal goes through a pager, as git does: PLUMB_PAGER,
 * else PAGER, else "less -FRX" (quit when it fits on one screen, keep
 * colours, leave the text on the screen). Never in a pipe, a file or
 * with TERM=dumb; --no-pager and PLUMB_PAGER="" or "cat" turn it off. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"

static bool disabled;       /* --no-pager */
static pid_t pager_pid = -1;
static unsigned saved_cols; /* the terminal's width, before stdout became the pipe */

void cli_pager_disable(void)
{
	disabled = true;
}

bool cli_stdout_is_terminal(void)
{
	return pager_pid > 0 || isatty(STDOUT_FILENO);
}

unsigned cli_paged_width(void)
{
	return pager_pid > 0 ? saved_cols : 0;
}

/* Is the default pager there? A missing one must not swallow the text. */
static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	char buf[4096];
	while (*path) {
		size_t n = strcspn(path, ":");
		snprintf(buf, sizeof buf, "%.*s/%s", (int)n, path, prog);
		if (access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

void cli_pager_start(void)
{
	if (disabled || pager_pid > 0 || !isatty(STDOUT_FILENO))
		return;
	const char *term = getenv("TERM");
	if (!term || strcmp(term, "dumb") == 0)
		return;
	const char *cmd = getenv("PLUMB_PAGER");
	if (!cmd)
		cmd = getenv("PAGER");
	if (!cmd) {
		cmd = "less -FRX";
		if (!on_path("less"))
			return;
	}
	if (!*cmd || strcmp(cmd, "cat") == 0)
		return;
	struct winsize ws;
	saved_cols = cli_terminal_width();
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		saved_cols = ws.ws_col;
	int fd[2];
	if (pipe(fd) != 0)
		return;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (pid == 0) {
		dup2(fd[0], STDIN_FILENO);
		close(fd[0]);
		close(fd[1]);
		setenv("LESS", "FRX", 0); /* for PAGER=less too, as git */
		setenv("LV", "-c", 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	dup2(fd[1], STDOUT_FILENO);
	close(fd[0]);
	close(fd[1]);
	pager_pid = pid;
}

void cli_pager_finish(void)
{
	if (pager_pid <= 0)
		return;
	/* stdout is closed by now: the pager sees the end and waits for the user */
	close(STDOUT_FILENO);
	int st;
	while (waitpid(pager_pid, &st, 0) < 0 && errno == EINTR)
		;
	pager_pid = -1;
}
