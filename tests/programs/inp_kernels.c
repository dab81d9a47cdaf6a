/* Kernels with known input sizes and growth, for plumb cc (t_inputs.sh):
 * sum reads n ints (rms n, linear), isort sorts n ints by insertion (rms n,
 * quadratic), msort by recursive merge sort (rms n, n log n, 2n-1 calls).
 * Sizes: 20, 40, ..., 20*STEPS (argument 1, default 20). */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE long sum(const int *a, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}

NOINLINE void isort(int *a, int n)
{
	for (int i = 1; i < n; i++) {
		int key = a[i], j = i - 1;
		while (j >= 0 && a[j] > key) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = key;
	}
}

NOINLINE void msort(int *a, int *tmp, int n)
{
	if (n < 2)
		return;
	int h = n / 2, i = 0, j = h, k = 0;
	msort(a, tmp, h);
	msort(a + h, tmp + h, n - h);
	while (i < h && j < n)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < h)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	for (k = 0; k < n; k++)
		a[k] = tmp[k];
}

static unsigned seed = 12345;

static void fill(int *a, int n)
{
	for (int i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		a[i] = (int)(seed >> 8);
	}
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 20;
	int max = 20 * steps;
	int *a = malloc(sizeof *a * (size_t)max), *tmp = malloc(sizeof *tmp * (size_t)max);
	long check = 0;
	for (int n = 20; n <= max; n += 20) {
		fill(a, n);
		check += sum(a, n);
		isort(a, n);
		fill(a, n);
		msort(a, tmp, n);
		check += a[0];
	}
	printf("%ld\n", check);
	free(a);
	free(tmp);
	return 0;
}
