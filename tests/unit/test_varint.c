/* The varint codec of the .plumb store's blocks (model/varint.h): every
 * length round-trips, whether the buffer has room past it or ends right
 * after it; a cut varint and one longer than 64 bits are bad. */
#include <criterion/criterion.h>
#include <string.h>

#include "model/varint.h"

static const uint64_t values[] = { 0, 1, 127, 128, 300, 16383, 16384, 1u << 21, 0xffffffffu,
				   1ull << 56, (1ull << 63) - 1, 1ull << 63, UINT64_MAX };

Test(varint, every_length_round_trips_with_and_without_room)
{
	for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
		uint8_t buf[32];
		memset(buf, 0xff, sizeof buf);
		uint8_t *end = plumb_varint_put(buf, values[i]);
		for (int tight = 0; tight < 2; tight++) {
			plumb_varint_in in = { buf, tight ? end : buf + sizeof buf, false };
			cr_expect_eq(plumb_varint_get(&in), values[i], "value %zu, tight %d", i, tight);
			cr_expect(!in.bad && in.p == end, "value %zu, tight %d", i, tight);
		}
	}
}

Test(varint, cut_and_overlong_varints_are_bad)
{
	uint8_t buf[32];
	memset(buf, 0, sizeof buf);
	uint8_t *end = plumb_varint_put(buf, UINT64_MAX);
	for (int tight = 0; tight < 2; tight++) {
		/* cut short: the last byte missing */
		plumb_varint_in cut = { buf, end - 1, false };
		cr_expect_eq(plumb_varint_get(&cut), 0);
		cr_expect(cut.bad && cut.p == cut.end);
		/* a tenth byte with more than bit 63 */
		buf[9] = 2;
		plumb_varint_in big = { buf, tight ? buf + 10 : buf + sizeof buf, false };
		cr_expect_eq(plumb_varint_get(&big), 0);
		cr_expect(big.bad, "tight %d", tight);
		/* eleven bytes */
		buf[9] = 0x81;
		plumb_varint_in eleven = { buf, tight ? buf + 11 : buf + sizeof buf, false };
		plumb_varint_get(&eleven);
		cr_expect(eleven.bad, "tight %d", tight);
		buf[9] = 1;
	}
}

/* The run decoder against plumb_varint_get one at a time: runs mixing
 * every length, each cut at every byte (a cut run is bad there too). */
Test(varint, a_run_decodes_as_one_at_a_time)
{
	uint64_t seed = 12345;
	for (int round = 0; round < 200; round++) {
		uint8_t buf[400], *p = buf;
		size_t n = 1 + round % 40;
		for (size_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			unsigned bits = (unsigned)(seed >> 58); /* 0 to 63: every length */
			uint64_t v = (seed >> 11) & (bits == 63 ? UINT64_MAX : (1ull << (bits + 1)) - 1);
			if (i % 5 == 4)
				v = values[(seed >> 3) % (sizeof values / sizeof *values)];
			p = plumb_varint_put(p, v);
		}
		size_t len = (size_t)(p - buf);
		for (size_t cut = 0; cut <= len; cut++) {
			uint64_t got[400], want[400];
			plumb_varint_in a = { buf, buf + cut, false }, b = a;
			size_t na = plumb_varint_get_run(&a, got), nb = 0;
			while (b.p < b.end && !b.bad)
				want[nb++] = plumb_varint_get(&b);
			cr_assert_eq(na, nb, "round %d cut %zu: %zu values, expected %zu", round, cut, na, nb);
			cr_assert(a.bad == b.bad && a.p == b.p, "round %d cut %zu: bad %d/%d", round, cut,
				  a.bad, b.bad);
			for (size_t i = 0; i < na; i++)
				cr_assert_eq(got[i], want[i], "round %d cut %zu value %zu: %llu, expected %llu",
					     round, cut, i, (unsigned long long)got[i],
					     (unsigned long long)want[i]);
		}
	}
}
