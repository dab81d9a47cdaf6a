/* plumb's demo program: builds a word list, counts words in a hash table,
 * sorts them with a recursive quicksort and checksums the result. Its
 * profile has a hot leaf, a recursion and a call from two places. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NWORDS 400000
#define NBUCKETS 65536

struct entry { char word[16]; long count; struct entry *next; };
static struct entry *buckets[NBUCKETS];
static struct entry *pool;
static size_t used;

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void make_word(char *out, unsigned seed)
{
	int len = 3 + seed % 10;
	for (int i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		out[i] = (char)('a' + (seed >> 16) % 6);
	}
	out[len] = '\0';
}

static void count_word(const char *w)
{
	unsigned b = hash(w) % NBUCKETS;
	for (struct entry *e = buckets[b]; e; e = e->next)
		if (strcmp(e->word, w) == 0) {
			e->count++;
			return;
		}
	struct entry *e = &pool[used++];
	strcpy(e->word, w);
	e->count = 1;
	e->next = buckets[b];
	buckets[b] = e;
}

static int before(const struct entry *a, const struct entry *b)
{
	return a->count != b->count ? a->count > b->count : strcmp(a->word, b->word) < 0;
}

static void quicksort(struct entry **v, long lo, long hi)
{
	while (lo < hi) {
		struct entry *pivot = v[(lo + hi) / 2];
		long i = lo, j = hi;
		while (i <= j) {
			while (before(v[i], pivot)) i++;
			while (before(pivot, v[j])) j--;
			if (i <= j) {
				struct entry *t = v[i]; v[i] = v[j]; v[j] = t;
				i++; j--;
			}
		}
		quicksort(v, lo, j);
		lo = i;
	}
}

static unsigned long checksum(struct entry **v, size_t n)
{
	unsigned long sum = 0;
	for (size_t i = 0; i < n; i++)
		sum = sum * 31 + hash(v[i]->word) + (unsigned long)v[i]->count;
	return sum;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	pool = calloc(NWORDS, sizeof *pool);
	unsigned long total = 0;
	for (int r = 0; r < rounds; r++) {
		memset(buckets, 0, sizeof buckets);
		used = 0;
		char w[16];
		for (unsigned i = 0; i < NWORDS; i++) {
			make_word(w, i * 2654435761u + (unsigned)r);
			count_word(w);
		}
		struct entry **v = malloc(used * sizeof *v);
		for (size_t i = 0; i < used; i++)
			v[i] = &pool[i];
		quicksort(v, 0, (long)used - 1);
		total += checksum(v, used);
		free(v);
	}
	printf("%zu distinct words, checksum %lu\n", used, total);
	free(pool);
	return 0;
}
