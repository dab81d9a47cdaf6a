/* Signal sampler test: dlopen a library by bare name (found through this
 * program's RUNPATH, which the sampler's dlopen wrapper must keep working),
 * burn in it, then dlclose it: its samples must still be symbolized. */
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
	void *h = dlopen("libsig_plugin.so", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	double (*work)(long) = (double (*)(long))dlsym(h, "plugin_work");
	printf("%g\n", work(100000000L));
	dlclose(h);
	return 0;
}
