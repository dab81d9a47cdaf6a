/* plumb record: sample a command (or a process) and write a .plumb profile. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "plumb/inputs.h"
#include "plumb/record.h"
#include "plumb/store.h"

static const char record_help[] =
	"usage: plumb record [options] [--] COMMAND [ARGS...]\n"
	"       plumb record [options] -p PID\n"
	"\n"
	"Run COMMAND (or watch process PID), sample it until it ends, and write a\n"
	"self-contained profile: samples with their call stacks, every thread and\n"
	"child process, load modules with build-ids, and the functions, files and\n"
	"lines they resolve to (so 'plumb report' works after a rebuild or on\n"
	"another machine). plumb exits with COMMAND's status (128+N if signal N\n"
	"ended it). Ctrl-C reaches COMMAND; the profile is still written.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE      the profile (default profile.plumb; written\n"
	"                         atomically); a profile already there is kept as\n"
	"                         FILE.old\n"
	"  -e, --event LIST       events to sample, comma-separated (default cpu-clock):\n"
	"                         cpu-clock, task-clock, page-faults, minor-faults,\n"
	"                         major-faults, context-switches, cpu-migrations,\n"
	"                         alignment-faults, emulation-faults; hardware: cycles,\n"
	"                         instructions, cache-references, cache-misses, branches,\n"
	"                         branch-misses, bus-cycles, ref-cycles,\n"
	"                         stalled-cycles-*; raw rNNNN; modifiers :u :k :p :pp\n"
	"                         :ppp. One column each. Each may have its own rate,\n"
	"                         in perf's syntax:\n"
	"                         -e cpu-clock/period=1000000/,page-faults/period=100/\n"
	"                         (period=N: every Nth event; freq=N: N a second)\n"
	"  -c, --count N          one sample every N events (N ns for the clocks), for\n"
	"                         each event without a period= or freq= of its own\n"
	"  -F, --freq HZ          samples per second of each event (default 1000)\n"
	"  -g, --call-graph MODE  dwarf (default: registers and 16 KiB of stack per\n"
	"                         sample, unwound with the binaries' CFI while\n"
	"                         recording), fp (the kernel's frame-pointer chain),\n"
	"                         none (the sampled instruction only)\n"
	"      --stack-size N     bytes of stack copied per sample in dwarf mode\n"
	"  -p, --pid PID          record the running process PID until it ends or Ctrl-C\n"
	"      --sampler WHICH    perf (perf_event_open), signal (a preloaded\n"
	"                         timer-signal sampler; CPU timers tick at most CONFIG_HZ\n"
	"                         per second) or auto (default: perf, else signal when\n"
	"                         perf_event_open is not permitted)\n"
	"      --heap[=MODE]      also trace the heap (docs/heap.md): exact (default),\n"
	"                         every allocation with its stack; or sample[:BYTES],\n"
	"                         one mark per BYTES allocated on average (default\n"
	"                         512K), unbiased estimates. Events allocs, alloc-bytes,\n"
	"                         peak-bytes, leaks, leak-bytes, temp-allocs, mmap-bytes;\n"
	"                         'plumb report --view heap' sums them up. Uses the\n"
	"                         signal sampler for the CPU samples beside them\n"
	"      --heap-seed N      the random seed of --heap=sample (default: the clock)\n"
	"      --off-cpu[=MODE]   also where threads wait: events off-cpu (ns each thread\n"
	"                         spent off the CPU, at the stack it left with),\n"
	"                         preempted (the part where it was runnable but not\n"
	"                         running) and wall (on-CPU + off-CPU: plumb report -m\n"
	"                         wall). Stacks from a preloaded library that times\n"
	"                         blocking calls; times, by MODE: sched (default),\n"
	"                         each thread's schedstat read every 5 ms by plumb,\n"
	"                         nothing added in the program; exact, the kernel's\n"
	"                         switch records, ~0.8 us a switch (docs/waits.md)\n"
	"      --sync-wait[=US]   lock waits, as gprofng -s: events sync-wait (ns) and\n"
	"                         sync-waits (count) at each wait of US microseconds or\n"
	"                         more in a mutex, condvar, rwlock, semaphore, barrier\n"
	"                         or join (default: calibrated on uncontended locks;\n"
	"                         0: every wait). plumb report --view locks\n"
	"  -q, --quiet            no summary or progress line on stderr\n"
	"\n"
	"A program built with 'plumb cc' is not sampled: its own runtime measures\n"
	"every call (basic blocks executed, read memory size) and the profile holds\n"
	"input-sensitive points, exact call counts and the calling context tree\n"
	"(plumb report --view inputs). For those:\n"
	"      --memres N         bytes per memory cell: 1, 2, 4 (default), 8 or 16\n"
	"      --contexts=no      routine points only, no calling contexts\n"
	"      --drms             input sizes count values other threads and input calls\n"
	"                         (read, recv, fread, mmap ...) wrote since (dynamic rms)\n"
	"      --cost time|bb     cost: wall-clock microseconds, or basic blocks\n"
	"                         (default)\n"
	"  -h, --help             this help\n"
	"\n"
	"Examples:\n"
	"  plumb record ./myprog input.txt && plumb report\n"
	"  plumb record -F 4000 -o run.plumb -- make -j2\n"
	"  plumb record -e cpu-clock,page-faults ./myprog\n"
	"  plumb record -c 100 -e minor-faults ./myprog     every 100th page fault\n"
	"  plumb record -e cpu-clock/period=1000000/,page-faults/period=100/ ./myprog\n"
	"  plumb record -g fp ./myprog                      cheaper, shallower stacks\n"
	"  plumb record -p 1234 -o daemon.plumb             until Ctrl-C\n"
	"  plumb record --heap ./myprog && plumb report --view heap\n"
	"  plumb report --view threads                      id, name, start routine\n"
	"  plumb record --off-cpu --sync-wait ./server      then: plumb report -m wall,\n"
	"                                                   plumb report --view locks\n";

enum { OPT_STACK_SIZE = 256, OPT_SAMPLER, OPT_MEMRES, OPT_CONTEXTS, OPT_DRMS, OPT_COST, OPT_HEAP, OPT_HEAP_SEED,
       OPT_OFF_CPU, OPT_SYNC_WAIT };

typedef struct record_args {
	const char *output, *events, *sampler;
	plumb_record_opts ro;
	bool quiet;
	unsigned memres;
	bool no_contexts, drms, cost_time, cost_given;
	char sync_ns[32];      /* --sync-wait threshold in ns, or "auto" */
} record_args;

static int parse_u64(const char *s, uint64_t *out)
{
	size_t v;
	if (cli_parse_size(s, &v) || v == 0)
		return -1;
	*out = v;
	return 0;
}

/* --heap, --heap=exact, --heap=sample, --heap=sample:BYTES (64K, 1M, ...) */
static int parse_heap(const char *arg, plumb_record_opts *ro)
{
	ro->heap = true;
	ro->heap_sample = 0;
	if (!arg || strcmp(arg, "exact") == 0)
		return 0;
	if (strcmp(arg, "sample") == 0) {
		ro->heap_sample = 512 * 1024;
		return 0;
	}
	if (strncmp(arg, "sample:", 7) == 0)
		return parse_u64(arg + 7, &ro->heap_sample);
	return -1;
}

static int parse_args(int argc, char **argv, record_args *a)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "event", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "call-graph", required_argument, NULL, 'g' },
		{ "stack-size", required_argument, NULL, OPT_STACK_SIZE },
		{ "pid", required_argument, NULL, 'p' },
		{ "sampler", required_argument, NULL, OPT_SAMPLER },
		{ "quiet", no_argument, NULL, 'q' },
		{ "memres", required_argument, NULL, OPT_MEMRES },
		{ "contexts", required_argument, NULL, OPT_CONTEXTS },
		{ "drms", no_argument, NULL, OPT_DRMS },
		{ "cost", required_argument, NULL, OPT_COST },
		{ "heap", optional_argument, NULL, OPT_HEAP },
		{ "heap-seed", required_argument, NULL, OPT_HEAP_SEED },
		{ "off-cpu", optional_argument, NULL, OPT_OFF_CPU },
		{ "sync-wait", optional_argument, NULL, OPT_SYNC_WAIT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;
	uint64_t v;
	optind = 1;
	opterr = 0;
	/* '+': options end at COMMAND, whose own options are its business */
	while ((c = getopt_long(argc, argv, "+:o:e:c:F:g:p:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			a->output = optarg;
			break;
		case 'e':
			a->events = optarg;
			break;
		case 'c':
			if (parse_u64(optarg, &a->ro.period))
				return cli_usage_error("record", "-c expects a positive count, got '%s'", optarg);
			break;
		case 'F':
			if (parse_u64(optarg, &a->ro.freq) || a->ro.freq > 1000000)
				return cli_usage_error("record", "-F expects a rate in Hz (1-1000000), got '%s'", optarg);
			break;
		case 'g':
			if (strcmp(optarg, "dwarf") == 0)
				a->ro.stack = PLUMB_STACK_DWARF;
			else if (strcmp(optarg, "fp") == 0)
				a->ro.stack = PLUMB_STACK_FP;
			else if (strcmp(optarg, "none") == 0)
				a->ro.stack = PLUMB_STACK_NONE;
			else
				return cli_usage_error("record", "-g expects dwarf, fp or none, got '%s'", optarg);
			break;
		case OPT_STACK_SIZE:
			if (parse_u64(optarg, &v) || v % 8 || v > 65000)
				return cli_usage_error("record", "--stack-size expects a multiple of 8 up to "
							       "65000, got '%s'", optarg);
			a->ro.stack_size = (uint32_t)v;
			break;
		case 'p':
			if (parse_u64(optarg, &v) || v > INT32_MAX)
				return cli_usage_error("record", "-p expects a process id, got '%s'", optarg);
			a->ro.pid = (pid_t)v;
			break;
		case OPT_SAMPLER:
			if (strcmp(optarg, "perf") && strcmp(optarg, "signal") && strcmp(optarg, "auto"))
				return cli_usage_error("record", "--sampler expects perf, signal or auto, got '%s'",
						       optarg);
			a->sampler = optarg;
			break;
		case OPT_HEAP:
			if (parse_heap(optarg, &a->ro))
				return cli_usage_error("record", "--heap expects exact, sample or sample:BYTES, "
							       "got '%s'", optarg);
			break;
		case OPT_HEAP_SEED:
			if (parse_u64(optarg, &a->ro.heap_seed))
				return cli_usage_error("record", "--heap-seed expects a positive number, got '%s'",
						       optarg);
			break;
		case 'q':
			a->quiet = true;
			break;
		case OPT_OFF_CPU:
			if (optarg && strcmp(optarg, "sched") && strcmp(optarg, "exact"))
				return cli_unknown_word("record", "--off-cpu mode", optarg, "sched, exact");
			a->ro.off_cpu = true;
			a->ro.off_cpu_exact = optarg && strcmp(optarg, "exact") == 0;
			break;
		case OPT_SYNC_WAIT: {
			char *end;
			errno = 0;
			unsigned long long us = optarg ? strtoull(optarg, &end, 10) : 0;
			if (optarg && (!*optarg || *end || errno || optarg[0] == '-' || us > 3600000000ull))
				return cli_usage_error("record", "--sync-wait expects a threshold in "
							       "microseconds (0 for every wait), got '%s'", optarg);
			if (optarg)
				snprintf(a->sync_ns, sizeof a->sync_ns, "%llu", us * 1000);
			else
				snprintf(a->sync_ns, sizeof a->sync_ns, "auto");
			a->ro.sync_wait = a->sync_ns;
			break;
		}
		case OPT_MEMRES:
			if (parse_u64(optarg, &v) || (v != 1 && v != 2 && v != 4 && v != 8 && v != 16))
				return cli_usage_error("record", "--memres expects 1, 2, 4, 8 or 16, got '%s'", optarg);
			a->memres = (unsigned)v;
			break;
		case OPT_CONTEXTS:
			if (strcmp(optarg, "yes") && strcmp(optarg, "no"))
				return cli_usage_error("record", "--contexts expects yes or no, got '%s'", optarg);
			a->no_contexts = strcmp(optarg, "no") == 0;
			break;
		case OPT_DRMS:
			a->drms = true;
			break;
		case OPT_COST:
			if (strcmp(optarg, "time") && strcmp(optarg, "bb"))
				return cli_usage_error("record", "--cost expects time or bb, got '%s'", optarg);
			a->cost_time = strcmp(optarg, "time") == 0;
			a->cost_given = true;
			break;
		case 'h':
			fputs(record_help, stdout);
			return -1;
		case ':':
			return cli_usage_error("record", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_unknown_option("record", argv[optind - 1], longopts);
		}
	}
	if (a->ro.period && a->ro.freq)
		return cli_usage_error("record", "-c and -F exclude each other");
	if (a->ro.heap_seed && !a->ro.heap_sample)
		return cli_usage_error("record", "--heap-seed is for --heap=sample");
	if (a->ro.heap && a->sampler && strcmp(a->sampler, "perf") == 0)
		return cli_usage_error("record", "--heap traces in the preloaded library, whose timer "
					       "signals take the CPU samples too: --sampler=perf cannot go with it");
	if (a->ro.off_cpu_exact && (a->ro.heap || (a->sampler && strcmp(a->sampler, "signal") == 0)))
		return cli_usage_error("record", "--off-cpu=exact reads the kernel's switch records, which "
					       "need the perf sampler: not with %s",
				       a->ro.heap ? "--heap (the signal sampler)" : "--sampler=signal");
	if (a->ro.heap && a->ro.pid)
		return cli_usage_error("record", "--heap needs the command started by plumb (the tracer "
					       "is preloaded into it), not -p");
	if (a->ro.pid && optind < argc)
		return cli_usage_error("record", "-p and a command exclude each other");
	if (!a->ro.pid && optind >= argc)
		return cli_usage_error("record", "no command to record");
	a->ro.argv = argv + optind;
	for (size_t i = 0; a->ro.off_cpu && a->events && i < 1; i++)
		if (!strstr(a->events, "cpu-clock") && !strstr(a->events, "task-clock"))
			return cli_usage_error("record", "--off-cpu needs cpu-clock or task-clock among "
						       "the events (for wall = on-CPU + off-CPU time)");
	return 0;
}

/* ---- signals: Ctrl-C and friends go to the command ----------------------- */

static volatile pid_t child_pid;
static volatile int stop_flag;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	stop_flag = 1;
	/* A terminal's Ctrl-C already reached the command (same process
	 * group); pass on what was sent to plumb alone. */
	if (child_pid > 0 && si->si_code != SI_KERNEL)
		kill(child_pid, sig);
}

static void started(pid_t child, void *ctx)
{
	(void)ctx;
	child_pid = child;
}

static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		sigaction(sigs[i], &sa, NULL);
}

static void print_warning(void *ctx, const char *message)
{
	(void)ctx;
	fprintf(stderr, "plumb record: warning: %s\n", message);
}

/* ---- the profile ----------------------------------------------------------- */

/* A profile already at the output path is the user's last run: keep it as
 * PATH.old (perf keeps perf.data.old) and say so, instead of replacing it
 * silently. Anything but a regular file (-o /dev/null, a pipe) is left as
 * it is. */
static int keep_old_profile(const char *path, bool quiet, plumb_error *err)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	size_t n = strlen(path) + sizeof ".old";
	char *old = malloc(n);
	if (!old)
		return plumb_fail_nomem(err);
	snprintf(old, n, "%s.old", path);
	/* a hard link keeps the old one at path too until the new one replaces
	 * it atomically: a failed write loses nothing */
	int rc = 0;
	if (unlink(old) != 0 && errno != ENOENT)
		rc = plumb_fail(err, PLUMB_ERR_IO, "%s: cannot replace it: %s", old, strerror(errno));
	else if (link(path, old) != 0 && rename(path, old) != 0)
		rc = plumb_fail(err, PLUMB_ERR_IO, "%s: cannot keep the previous profile as %s: %s", path, old,
				strerror(errno));
	else if (!quiet)
		fprintf(stderr, "plumb record: kept the previous %s as %s\n", path, old);
	free(old);
	return rc;
}

/* How often each event was sampled, naming the option that said so:
 * "every 100 events (-c 100)", "cpu-clock 4000 Hz (freq=4000), ...". */
static void rate_text(const record_args *a, char *buf, size_t size)
{
	const char *opt = a->ro.period ? "-c" : a->ro.freq ? "-F" : "default";
	bool own = false;
	for (size_t i = 0; i < a->ro.nevents; i++)
		own |= a->ro.events[i].period || a->ro.events[i].freq;
	if (!own) {
		if (a->ro.period)
			snprintf(buf, size, "every %" PRIu64 " events (-c %" PRIu64 ")", a->ro.period, a->ro.period);
		else
			snprintf(buf, size, "%" PRIu64 " Hz (%s%s)", a->ro.freq ? a->ro.freq : 1000, opt,
				 a->ro.freq ? "" : "; -F sets it");
		return;
	}
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < a->ro.nevents && len < size; i++) {
		const plumb_rec_event_spec *e = &a->ro.events[i];
		const char *sep = i ? ", " : "";
		if (e->period)
			len += (size_t)snprintf(buf + len, size - len, "%s%s every %" PRIu64 " (period=)", sep,
						e->name, e->period);
		else if (e->freq)
			len += (size_t)snprintf(buf + len, size - len, "%s%s %" PRIu64 " Hz (freq=)", sep, e->name,
						e->freq);
		else if (a->ro.period)
			len += (size_t)snprintf(buf + len, size - len, "%s%s every %" PRIu64 " (-c)", sep, e->name,
						a->ro.period);
		else
			len += (size_t)snprintf(buf + len, size - len, "%s%s %" PRIu64 " Hz (%s)", sep, e->name,
						a->ro.freq ? a->ro.freq : 1000, opt);
	}
}

/* What to change when samples were lost: the option that set the rate. */
static const char *lost_hint(const record_args *a)
{
	for (size_t i = 0; i < a->ro.nevents; i++)
		if (a->ro.events[i].period || a->ro.events[i].freq)
			return "give the events a larger period= or a lower freq=";
	if (a->ro.period)
		return "raise -c";
	if (a->ro.freq)
		return "lower -F";
	return "sample less often: -F below the default 1000 Hz, or -c N";
}

/* -c N with a clock and a count: N ns of the clock and N of the count are
 * rarely both meant. */
static void warn_shared_period(const record_args *a)
{
	if (!a->ro.period || a->quiet)
		return;
	const char *clock = NULL, *count = NULL;
	for (size_t i = 0; i < a->ro.nevents; i++) {
		const plumb_rec_event_spec *e = &a->ro.events[i];
		if (e->period || e->freq)
			continue;
		bool is_clock = strcmp(e->name, "cpu-clock") == 0 || strcmp(e->name, "task-clock") == 0;
		if (is_clock && !clock)
			clock = e->name;
		else if (!is_clock && !count)
			count = e->name;
	}
	if (clock && count)
		fprintf(stderr, "plumb record: warning: -c %" PRIu64 " applies to each event: %s every %" PRIu64
			" ns, %s every %" PRIu64 " events; give each its own period with -e %s/period=N/,%s/period=M/\n",
			a->ro.period, clock, a->ro.period, count, a->ro.period, clock, count);
}

static int command_meta(plumb_profile *p, const record_args *a, const plumb_rec_data *d,
			const char *sampler, plumb_error *err)
{
	char buf[4096];
	size_t len = 0;
	buf[0] = 0;
	if (a->ro.pid)
		snprintf(buf, sizeof buf, "pid %d", (int)a->ro.pid);
	for (char *const *s = a->ro.argv; !a->ro.pid && *s && len < sizeof buf - 1; s++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", s == a->ro.argv ? "" : " ", *s);
	static const char *const modes[] = { "dwarf", "fp", "none" };
	char rate[512];
	rate_text(a, rate, sizeof rate);
	char waits[64] = "";
	uint64_t thr = 0, mean = 0;
	if (a->ro.sync_wait && plumb_rec_waits_settings(d, &thr, &mean))
		snprintf(waits, sizeof waits, "%.3f us%s", (double)thr / 1000.0,
			 strcmp(a->ro.sync_wait, "auto") == 0 ? " (calibrated)" : "");
	if (waits[0] && plumb_meta_set(p, "record.sync_threshold", waits, err))
		return -1;
	/* which mode (docs/waits.md): what plumb info shows */
	char off[96];
	snprintf(off, sizeof off, "%s%s%s", a->ro.off_cpu_exact ? "exact: switch records" : "sched: schedstat polls",
		 a->ro.pid ? "" : " + wait tracer", strcmp(sampler, "signal") == 0 ? " (signal sampler)" : "");
	if (a->ro.off_cpu && plumb_meta_set(p, "record.off_cpu", off, err))
		return -1;
	return plumb_meta_set(p, "cmd", buf, err) || plumb_meta_set(p, "creator", "plumb record", err) ||
	       plumb_meta_set(p, "record.stack", modes[a->ro.stack], err) ||
	       plumb_meta_set(p, "record.rate", rate, err);
}

static int save(const record_args *a, const plumb_rec_data *d, const char *sampler,
		const plumb_record_result *res, plumb_error *err)
{
	plumb_profile *p = plumb_profile_new();
	if (!p)
		return plumb_fail_nomem(err);
	plumb_rec_profile_opts po = { NULL, true, print_warning, NULL };
	int rc = plumb_rec_to_profile(d, &po, p, err);
	if (rc == 0)
		rc = command_meta(p, a, d, sampler, err) || plumb_meta_set(p, "record.sampler", sampler, err) ||
		     (*res->note && plumb_meta_set(p, "record.note", res->note, err));
	if (rc == 0 && res->unwound_recipe + res->unwound_libdw) {
		/* how the user stacks were unwound (unwind_recipe.c) */
		char how[64];
		snprintf(how, sizeof how, "%" PRIu64 " %" PRIu64, res->unwound_recipe, res->unwound_libdw);
		rc = plumb_meta_set(p, "record.unwound", how, err);
	}
	if (rc == 0)
		rc = keep_old_profile(a->output, a->quiet, err);
	if (rc == 0) {
		plumb_write_progress wp = { NULL, NULL };
		if (!a->quiet)
			cli_progress_write_setup(&wp);
		rc = plumb_store_write_progress(p, a->output, &wp, err);
	}
	if (rc == 0 && !a->quiet) {
		const char *rooted = plumb_meta_get(p, "stacks.rooted");
		unsigned long long r = 0, t = 0;
		struct stat st;
		fprintf(stderr, "plumb record: %zu samples", d->samples.n);
		if (d->lost)
			fprintf(stderr, " (%" PRIu64 " LOST: the ring buffer overflowed; %s)", d->lost, lost_hint(a));
		fprintf(stderr, ", %zu thread%s", p->parts.n, p->parts.n == 1 ? "" : "s");
		if (rooted && sscanf(rooted, "%llu %llu", &r, &t) == 2 && t)
			fprintf(stderr, ", stacks reaching a root: %.1f%%", 100.0 * (double)r / (double)t);
		if (stat(a->output, &st) == 0)
			fprintf(stderr, "; %s: %lld KB", a->output, ((long long)st.st_size + 1023) / 1024);
		fputc('\n', stderr);
	}
	plumb_profile_free(p);
	return rc;
}

/* Exit status as a shell gives it. */
static int command_status(int st)
{
	if (st < 0)
		return EXIT_BAD_INPUT;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return EXIT_BAD_INPUT;
}

static int record(record_args *a)
{
	plumb_error err;
	plumb_record_result res = { 0 };
	plumb_rec_event_spec *ev = NULL;
	if (a->events && plumb_rec_parse_events(a->events, &ev, &a->ro.nevents, &err))
		return cli_fail(&err);
	a->ro.events = ev;
	warn_shared_period(a);
	a->ro.started = started;
	a->ro.stop = &stop_flag;
	a->ro.warn = print_warning;
	catch_signals();
	plumb_rec_data *d = plumb_rec_data_new();
	if (!d) {
		free(ev);
		cli_error("out of memory");
		return EXIT_BAD_INPUT;
	}
	const char *sampler = strcmp(a->sampler, "signal") == 0 || a->ro.heap ? "signal" : "perf";
	int rc = strcmp(sampler, "perf") == 0 ? plumb_record_perf(&a->ro, d, &res, &err)
					      : plumb_record_signal(&a->ro, d, &res, &err);
	if (rc && res.not_permitted && strcmp(a->sampler, "auto") == 0 && res.wait_status == -1) {
		if (!a->quiet)
			fprintf(stderr, "plumb record: %s; using the signal sampler\n", err.message);
		plumb_rec_data_free(d);
		d = plumb_rec_data_new();
		sampler = "signal";
		rc = d ? plumb_record_signal(&a->ro, d, &res, &err) : plumb_fail_nomem(&err);
	}
	int status;
	if (rc) {
		/* the command could not run at all: a shell's 127 */
		status = res.wait_status >= 0 && command_status(res.wait_status) == 127 ? 127 : cli_fail(&err);
		if (status == 127)
			cli_error("%s", err.message);
	} else {
		status = command_status(res.wait_status);
		if (a->ro.pid && res.wait_status < 0)
			status = EXIT_OK;
		if (save(a, d, sampler, &res, &err)) {
			status = cli_fail(&err);
		} else if (res.incomplete[0]) {
			/* what was recorded is saved; that it is not all is a failure */
			cli_error("%s", res.incomplete);
			status = EXIT_BAD_INPUT;
		}
	}
	plumb_rec_data_free(d);
	free(ev);
	return status;
}

/* ---- programs built with plumb cc --------------------------------------- */

static int record_inputs(record_args *a)
{
	plumb_error err;
	if (!a->quiet)
		fprintf(stderr, "plumb record: %s was built with plumb cc: measuring input sizes and exact "
			"calls (no sampling)\n", a->ro.argv[0]);
	catch_signals();
	plumb_profile *p = plumb_profile_new();
	if (!p) {
		cli_error("out of memory");
		return EXIT_BAD_INPUT;
	}
	plumb_inputs_opts o = { .argv = a->ro.argv, .memres = a->memres, .no_contexts = a->no_contexts,
				.drms = a->drms, .cost_time = a->cost_time, .started = started };
	int st = -1;
	size_t n = 0;
	int status;
	if (plumb_record_inputs(&o, p, &st, &n, &err)) {
		status = st >= 0 && command_status(st) == 127 ? 127 : cli_fail(&err);
	} else {
		status = command_status(st);
		char buf[4096];
		size_t len = 0;
		buf[0] = 0;
		for (char *const *s = a->ro.argv; *s && len < sizeof buf - 1; s++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", s == a->ro.argv ? "" : " ", *s);
		if (plumb_meta_set(p, "cmd", buf, &err) || plumb_meta_set(p, "creator", "plumb record", &err) ||
		    plumb_meta_set(p, "record.sampler", "inputs (plumb cc)", &err) ||
		    keep_old_profile(a->output, a->quiet, &err) || plumb_store_write(p, a->output, &err)) {
			status = cli_fail(&err);
		} else if (!a->quiet) {
			struct stat sb;
			fprintf(stderr, "plumb record: %zu report%s (one per thread and process) read", n, n == 1 ? "" : "s");
			if (stat(a->output, &sb) == 0)
				fprintf(stderr, "; %s: %lld KB", a->output, ((long long)sb.st_size + 1023) / 1024);
			fputc('\n', stderr);
			const char *lines = plumb_meta_get(p, "inputs.lines");
			if (lines)
				fprintf(stderr, "plumb record: note: %s\n", lines);
		}
	}
	plumb_profile_free(p);
	return status;
}

int cmd_record(int argc, char **argv)
{
	record_args a = { .output = "profile.plumb", .sampler = "auto" };
	int rc = parse_args(argc, argv, &a);
	if (rc < 0)
		return EXIT_OK; /* --help */
	if (rc)
		return rc;
	if (!a.ro.pid) {
		char *exe = plumb_inputs_which(a.ro.argv[0]);
		bool inputs = exe && plumb_inputs_instrumented(exe);
		free(exe);
		if (inputs && (a.ro.off_cpu || a.ro.sync_wait))
			return cli_usage_error("record", "--off-cpu and --sync-wait are for sampled "
					       "programs; %s was built with plumb cc", a.ro.argv[0]);
		if (inputs)
			return record_inputs(&a);
	}
	if (a.ro.pid && a.ro.off_cpu && !a.quiet)
		fprintf(stderr, "plumb record: -p: the wait tracer is loaded only into a command plumb "
			"starts; off-CPU intervals go to each thread's nearest CPU sample\n");
	if (a.memres || a.no_contexts || a.drms || a.cost_given)
		return cli_usage_error("record", "--memres, --contexts, --drms and --cost are for programs built "
				       "with plumb cc");
	return record(&a);
}
