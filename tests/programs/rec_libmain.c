/* Calls lib_linked (from librec_linked.so) and lib_loaded (dlopen'd from
 * argv[1]) for about the same time each. */
#include <dlfcn.h>
#include <stdio.h>

void lib_linked(unsigned long n);

int main(int argc, char **argv)
{
	void *h = dlopen(argc > 1 ? argv[1] : "./librec_loaded.so", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	void (*loaded)(unsigned long) = (void (*)(unsigned long))dlsym(h, "lib_loaded");
	for (int i = 0; i < 4000; i++) {
		lib_linked(100000);
		loaded(100000);
	}
	return 0;
}
