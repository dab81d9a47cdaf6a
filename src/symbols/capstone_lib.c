/* capstone through dlopen (capstone_lib.h says why). The soname comes from
 * the header the build used, so the library matches the declarations. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "symbols/capstone_lib.h"

#define STR2(x) #x
#define STR(x) STR2(x)
#define CAPSTONE_SONAME "libcapstone.so." STR(CS_API_MAJOR)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static plumb_capstone lib;
static const plumb_capstone *loaded;
static char why[200];

static void load(void)
{
	void *h = dlopen(CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(why, sizeof why, "%s", e ? e : "dlopen failed");
		return;
	}
	/* POSIX: a data pointer from dlsym converts to a function pointer */
	*(void **)&lib.open = dlsym(h, "cs_open");
	*(void **)&lib.close = dlsym(h, "cs_close");
	*(void **)&lib.disasm = dlsym(h, "cs_disasm");
	*(void **)&lib.free = dlsym(h, "cs_free");
	if (!lib.open || !lib.close || !lib.disasm || !lib.free) {
		snprintf(why, sizeof why, "%s lacks cs_open, cs_close, cs_disasm or cs_free", CAPSTONE_SONAME);
		return;
	}
	loaded = &lib;
}

const plumb_capstone *plumb_capstone_get(plumb_error *err)
{
	pthread_once(&once, load);
	if (!loaded && err)
		plumb_fail(err, PLUMB_ERR_UNSUPPORTED,
			   "cannot disassemble: %s (Debian package libcapstone4)", why);
	return loaded;
}
