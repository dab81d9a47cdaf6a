/* plumb: the timeline view's lanes (t->timeline) drawn as text, a line per
 * thread and event with one block character per time bucket, and as SVG,
 * a strip of bars per lane. The heights are shares of the largest bucket
 * of that event over all lanes, so lanes of one event compare. */
#include <stdio.h>
#include <string.h>

#include "output/output_internal.h"
#include "plumb/output.h"

/* The largest bucket of the event of lane l, over all lanes. */
static uint64_t event_max(const plumb_timeline *tl, size_t l)
{
	uint64_t m = 0;
	for (size_t i = 0; i < tl->nlanes; i++)
		if (strcmp(tl->lanes[i].event, tl->lanes[l].event) == 0 && tl->lanes[i].max > m)
			m = tl->lanes[i].max;
	return m;
}

static const char *duration(double s, char *buf, size_t n)
{
	char num[64];
	if (s >= 1 || s == 0)
		snprintf(buf, n, "%s s", plumb_format_fixed(s, 3, num, sizeof num));
	else if (s >= 1e-3)
		snprintf(buf, n, "%s ms", plumb_format_fixed(s * 1e3, 3, num, sizeof num));
	else
		snprintf(buf, n, "%s us", plumb_format_fixed(s * 1e6, 3, num, sizeof num));
	return buf;
}

/* Printable, at most w bytes of whole UTF-8 characters, padded to w columns. */
static void put_cell(FILE *out, const char *s, size_t w)
{
	size_t used = 0;
	for (const unsigned char *c = (const unsigned char *)s; c && *c && used < w;) {
		size_t k = plumb_utf8_seq(c);
		if (!k || *c < 0x20) {
			fputc('?', out);
			c++;
		} else {
			fwrite(c, 1, k, out);
			c += k;
		}
		used++;
	}
	for (; used < w; used++)
		fputc(' ', out);
}

int plumb_timeline_write_text(const plumb_table *t, FILE *out, const plumb_text_opts *o, plumb_error *err)
{
	static const char *const block[] = { "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
					     "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88" };
	const plumb_timeline *tl = t->timeline;
	char a[64], b[64], c[64], num[32];
	fprintf(out, "%s\n", t->title ? t->title : "Timeline");
	if (!tl->nlanes) {
		fputs("No samples in the selected time and stacks.\n", out);
		return plumb_output_flush(out, "timeline", err);
	}
	size_t wthread = 6, wevent = 5, wtotal = 5;
	for (size_t l = 0; l < tl->nlanes; l++) {
		size_t n = strlen(tl->lanes[l].thread);
		wthread = n > wthread ? n : wthread;
		n = strlen(tl->lanes[l].event);
		wevent = n > wevent ? n : wevent;
		n = strlen(plumb_format_u64(tl->lanes[l].total, num, sizeof num));
		wtotal = n > wtotal ? n : wtotal;
	}
	/* the lane is what matters: names give way on a narrow terminal */
	size_t fixed = 5 + 2 + wevent + 2 + wtotal + 2 + 2 + tl->nbuckets;
	if (o && o->width && fixed + wthread > o->width)
		wthread = o->width > fixed + 8 ? o->width - fixed : 8;
	if (wthread > 40)
		wthread = 40;
	fprintf(out, "%s to %s, %zu buckets of %s; a block's height: its share of the event's largest bucket\n\n",
		duration(tl->start_s, a, sizeof a),
		duration(tl->start_s + tl->bucket_s * (double)tl->nbuckets, b, sizeof b), tl->nbuckets,
		duration(tl->bucket_s, c, sizeof c));
	fprintf(out, "%-5s  ", "Part");
	put_cell(out, "Thread", wthread);
	fputs("  ", out);
	put_cell(out, "Event", wevent);
	fprintf(out, "  %*s  |%s\n", (int)wtotal, "Total", "");
	for (size_t l = 0; l < tl->nlanes; l++) {
		const plumb_timeline_lane *L = &tl->lanes[l];
		uint64_t m = event_max(tl, l);
		fprintf(out, "%-5u  ", L->part);
		put_cell(out, L->thread, wthread);
		fputs("  ", out);
		put_cell(out, L->event, wevent);
		fprintf(out, "  %*s  |", (int)wtotal, plumb_format_u64(L->total, num, sizeof num));
		for (size_t k = 0; k < tl->nbuckets; k++) {
			uint64_t v = L->values[k];
			if (!v) {
				fputc(' ', out);
				continue;
			}
			/* any cost shows: the lowest block at least */
			size_t h = (size_t)((long double)v * 8 / (long double)m);
			fputs(block[h ? (h > 8 ? 7 : h - 1) : 0], out);
		}
		fputs("|\n", out);
	}
	return plumb_output_flush(out, "timeline", err);
}

enum { SVG_W = 960, LABEL_W = 220, LANE_H = 36, TOP = 48 };

int plumb_timeline_write_svg(const plumb_table *t, FILE *out, plumb_error *err)
{
	const plumb_timeline *tl = t->timeline;
	size_t h = TOP + tl->nlanes * LANE_H + 40;
	double plot_w = SVG_W - LABEL_W - 20, bw = plot_w / (double)(tl->nbuckets ? tl->nbuckets : 1);
	char a[64], b[64], num[32];
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%zu\" viewBox=\"0 0 %d %zu\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n"
		"<text x=\"10\" y=\"20\" font-size=\"14\">",
		SVG_W, h, SVG_W, h);
	plumb_svg_text(out, t->title ? t->title : "Timeline");
	fprintf(out, "</text>\n<text x=\"%d\" y=\"%d\" fill=\"#555\">%s</text>\n"
		"<text x=\"%d\" y=\"%d\" fill=\"#555\" text-anchor=\"end\">%s</text>\n",
		LABEL_W, TOP - 6, duration(tl->start_s, a, sizeof a), SVG_W - 20, TOP - 6,
		duration(tl->start_s + tl->bucket_s * (double)tl->nbuckets, b, sizeof b));
	for (size_t l = 0; l < tl->nlanes; l++) {
		const plumb_timeline_lane *L = &tl->lanes[l];
		uint64_t m = event_max(tl, l);
		double y0 = TOP + (double)l * LANE_H;
		fprintf(out, "<g class=\"lane\"><text x=\"10\" y=\"%.1f\">", y0 + 15);
		plumb_svg_text(out, L->thread);
		fprintf(out, "</text><text x=\"10\" y=\"%.1f\" fill=\"#555\">", y0 + 28);
		plumb_svg_text(out, L->event);
		fprintf(out, " %s", plumb_format_u64(L->total, num, sizeof num));
		if (L->unit) {
			fputc(' ', out);
			plumb_svg_text(out, L->unit);
		}
		fprintf(out, "</text>\n<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"#eee\"/>\n",
			LABEL_W, y0 + 2, plot_w, LANE_H - 6);
		for (size_t k = 0; k < tl->nbuckets; k++) {
			uint64_t v = L->values[k];
			if (!v)
				continue;
			double bh = (double)(LANE_H - 6) * (double)((long double)v / (long double)m);
			if (bh < 1)
				bh = 1;
			fprintf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#d9622b\">"
				"<title>%s to %s: ", LABEL_W + (double)k * bw, y0 + LANE_H - 4 - bh, bw, bh,
				duration(tl->start_s + (double)k * tl->bucket_s, a, sizeof a),
				duration(tl->start_s + (double)(k + 1) * tl->bucket_s, b, sizeof b));
			fprintf(out, "%s ", plumb_format_u64(v, num, sizeof num));
			plumb_svg_text(out, L->event);
			fputs("</title></rect>\n", out);
		}
		fputs("</g>\n", out);
	}
	fputs("</svg>\n", out);
	return plumb_output_flush(out, "SVG timeline", err);
}
