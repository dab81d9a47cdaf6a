/* plumb: the flame view as an SVG flame graph (report --view flame --format svg).
 *
 * One box per box of the view (t->flame), drawn as flamegraph.pl draws
 * them: roots at the bottom (at the top when inverted), a box's width
 * proportional to its inclusive cost, titled "name (N event, P%)". The
 * picture is complete without script; a small inline script adds
 * click-to-zoom, search and a details line for browsers. Boxes narrower
 * than MIN_PX are left out (their cost stays in their parent's width).
 * Colours are by load module: one hue per module, the shade by name.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/cxx_name.h"
#include "output/output_internal.h"
#include "plumb/output.h"

enum { WIDTH = 1200, XPAD = 10, TOP = 48, BOTTOM = 28, BOX_H = 16, FONT = 12 };
#define CHAR_W (0.59 * FONT)  /* average width of a character of the font */
#define MIN_PX 0.1

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;
	return b ? b + 1 : path;
}

/* hsl (h in degrees, s and l in 0..1) to "#rrggbb". */
static void hsl_hex(double h, double s, double l, char out[8])
{
	double c = (1 - fabs(2 * l - 1)) * s, hp = h / 60, x = c * (1 - fabs(fmod(hp, 2) - 1));
	double r = 0, g = 0, b = 0;
	if (hp < 1) { r = c; g = x; }
	else if (hp < 2) { r = x; g = c; }
	else if (hp < 3) { g = c; b = x; }
	else if (hp < 4) { g = x; b = c; }
	else if (hp < 5) { r = x; b = c; }
	else { r = c; b = x; }
	double m = l - c / 2;
	snprintf(out, 8, "#%02x%02x%02x", (unsigned)lround((r + m) * 255), (unsigned)lround((g + m) * 255),
		 (unsigned)lround((b + m) * 255));
}

/* Warm colours for the unknown module (folded stacks), a hue per module
 * otherwise; the name varies the shade so neighbours stay apart. */
static void box_colour(const plumb_flame_box *b, char out[8])
{
	static const double hues[] = { 20, 45, 200, 140, 280, 170, 330, 90, 240, 0 };
	uint32_t hn = hash(b->name);
	double shade = (double)(hn % 1000) / 1000.0;
	if (!b->module) {
		hsl_hex(10 + 40 * shade, 0.85, 0.55 + 0.1 * shade, out);
		return;
	}
	double hue = hues[hash(base_name(b->module)) % (sizeof hues / sizeof *hues)];
	hsl_hex(hue + 10 * shade, 0.6, 0.62 + 0.12 * shade, out);
}

/* The first n characters of s (UTF-8 sequences; a bad byte counts as one). */
static size_t utf8_prefix(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0;
	while (n-- && p[len]) {
		size_t k = plumb_utf8_seq(p + len);
		len += k ? k : 1;
	}
	return len;
}

static size_t utf8_count(const char *s)
{
	size_t n = 0, len = strlen(s);
	for (size_t i = 0; i < len; n++) {
		size_t k = plumb_utf8_seq((const unsigned char *)s + i);
		i += k ? k : 1;
	}
	return n;
}

/* The label that fits px: the whole name, or its shortest C++ form
 * (short: template arguments and parameters hidden; NULL when it has none),
 * or the start of that and an ellipsis, or nothing under three characters
 * (the script's fit() does the same). */
static void write_label(FILE *out, const char *name, const char *short_name, double px)
{
	double room = (px - 6) / CHAR_W;
	if (room < 3)
		return;
	size_t fit = (size_t)room;
	if (utf8_count(name) <= fit) {
		plumb_svg_text(out, name);
		return;
	}
	if (short_name) {
		if (utf8_count(short_name) <= fit) {
			plumb_svg_text(out, short_name);
			return;
		}
		name = short_name;
	}
	char buf[1024];
	size_t len = utf8_prefix(name, fit - 1);
	if (len >= sizeof buf)
		len = utf8_prefix(name, 200);
	memcpy(buf, name, len);
	buf[len] = '\0';
	plumb_svg_text(out, buf);
	fputs("\xe2\x80\xa6", out);
}

static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"(function () {\n"
	"var W = WIDTH_PX, X0 = XPAD_PX, CW = CHAR_PX, boxes = [], zoomed = null;\n"
	"var unzoom = document.getElementById('unzoom'), details = document.getElementById('details');\n"
	"var matched = document.getElementById('matched'), clear = document.getElementById('clear');\n"
	"function nameOf(g) { var t = g.firstElementChild.textContent; return t.slice(0, t.lastIndexOf(' (')); }\n"
	"function fit(g) {\n"
	"  var room = Math.floor((g.w - 6) / CW), n = Array.from(g.name), s = g.short ? Array.from(g.short) : null;\n"
	"  g.label.textContent = room < 3 ? '' : n.length <= room ? g.name : s && s.length <= room ? g.short :\n"
	"    (s || n).slice(0, room - 1).join('') + '\\u2026';\n"
	"}\n"
	"function place(g, x, w, show) {\n"
	"  g.style.display = show ? '' : 'none'; if (!show) return;\n"
	"  g.x = x; g.w = w; g.rect.setAttribute('x', x); g.rect.setAttribute('width', w);\n"
	"  g.label.setAttribute('x', x + 3); fit(g);\n"
	"}\n"
	"function zoom(z) {\n"
	"  zoomed = z; unzoom.style.display = z ? '' : 'none';\n"
	"  boxes.forEach(function (g) {\n"
	"    if (!z) { place(g, g.ox, g.ow, true); g.style.opacity = ''; return; }\n"
	"    var e = 1e-6, s = W / z.ow;\n"
	"    if (g.d < z.d && g.ox <= z.ox + e && g.ox + g.ow >= z.ox + z.ow - e) {\n"
	"      place(g, X0, W, true); g.style.opacity = '0.6';\n"
	"    } else if (g.d >= z.d && g.ox >= z.ox - e && g.ox + g.ow <= z.ox + z.ow + e) {\n"
	"      place(g, X0 + (g.ox - z.ox) * s, g.ow * s, true); g.style.opacity = '';\n"
	"    } else place(g, 0, 0, false);\n"
	"  });\n"
	"}\n"
	"function search(re) {\n"
	"  var spans = [];\n"
	"  boxes.forEach(function (g) {\n"
	"    var hit = re && re.test(g.name);\n"
	"    g.rect.setAttribute('fill', hit ? 'rgb(230,0,230)' : g.fill);\n"
	"    if (hit) spans.push([g.ox, g.ox + g.ow]);\n"
	"  });\n"
	"  spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
	"  var sum = 0, end = -1;\n"
	"  spans.forEach(function (s) { if (s[0] >= end) { sum += s[1] - s[0]; end = s[1]; } else if (s[1] > end) { sum += s[1] - end; end = s[1]; } });\n"
	"  matched.textContent = re ? 'Matched: ' + (100 * sum / W).toFixed(1) + '%' : '';\n"
	"  clear.style.display = re ? '' : 'none';\n"
	"}\n"
	"Array.prototype.forEach.call(document.querySelectorAll('g.f'), function (g) {\n"
	"  g.rect = g.querySelector('rect'); g.label = g.querySelector('text');\n"
	"  g.ox = +g.rect.getAttribute('x'); g.ow = +g.rect.getAttribute('width');\n"
	"  g.d = +g.getAttribute('data-d'); g.fill = g.rect.getAttribute('fill'); g.name = nameOf(g);\n"
	"  g.short = g.getAttribute('data-s');\n"
	"  g.addEventListener('click', function () { zoom(g); });\n"
	"  g.addEventListener('mouseover', function () { details.textContent = g.firstElementChild.textContent + (g.getAttribute('data-m') ? ' in ' + g.getAttribute('data-m') : ''); });\n"
	"  g.addEventListener('mouseout', function () { details.textContent = ''; });\n"
	"  boxes.push(g);\n"
	"});\n"
	"unzoom.addEventListener('click', function () { zoom(null); });\n"
	"clear.addEventListener('click', function () { search(null); });\n"
	"document.getElementById('search').addEventListener('click', function () {\n"
	"  var s = prompt('Search (regular expression)', '');\n"
	"  if (s) { try { search(new RegExp(s)); } catch (e) { alert(e.message); } }\n"
	"});\n"
	"})();\n"
	"]]></script>\n";

/* The script with its constants filled in. */
static void write_script(FILE *out)
{
	const char *s = script;
	static const char *const keys[] = { "WIDTH_PX", "XPAD_PX", "CHAR_PX" };
	for (;;) {
		const char *hit = NULL;
		size_t which = 0;
		for (size_t k = 0; k < 3; k++) {
			const char *h = strstr(s, keys[k]);
			if (h && (!hit || h < hit)) {
				hit = h;
				which = k;
			}
		}
		if (!hit) {
			fputs(s, out);
			return;
		}
		fwrite(s, 1, (size_t)(hit - s), out);
		if (which == 0)
			fprintf(out, "%d", WIDTH);
		else if (which == 1)
			fprintf(out, "%d", XPAD);
		else
			fprintf(out, "%.2f", CHAR_W);
		s = hit + strlen(keys[which]);
	}
}

/* Differential flames: red where the box grew, blue where it shrank, the
 * deeper the larger the change against the largest one; grey when equal. */
static void change_colour(const plumb_flame *fl, const plumb_flame_box *b, char out[8])
{
	if (b->change == 0 || fl->max_change == 0) {
		snprintf(out, 8, "#dcdcdc");
		return;
	}
	double mag = (double)(b->change < 0 ? -(b->change + 1) + 1.0 : (double)b->change);
	double f = mag / (double)fl->max_change;
	hsl_hex(b->change > 0 ? 0 : 215, 0.85, 0.92 - 0.42 * f, out);
}

static void write_box(FILE *out, const plumb_flame *fl, const plumb_flame_box *b, double height)
{
	double scale = (double)WIDTH / (double)fl->total;
	double x = XPAD + (double)b->x * scale, w = (double)b->width * scale;
	double y = fl->inverted ? TOP + (double)b->depth * BOX_H
				: height - BOTTOM - (double)(b->depth + 1) * BOX_H;
	char fill[8], pct[32], num[32];
	if (fl->differential)
		change_colour(fl, b, fill);
	else
		box_colour(b, fill);
	const char *name = b->name ? b->name : "[unknown]";
	char shortest[4096];
	size_t len = strlen(name), n = len < sizeof shortest ? plumb_cxx_shorten(name, len, 0, shortest) : 0;
	shortest[n] = '\0';
	fprintf(out, "<g class=\"f\" data-d=\"%" PRIu32 "\"", b->depth);
	if (n) { /* the C++ name without its template arguments and parameters */
		fputs(" data-s=\"", out);
		plumb_svg_text(out, shortest);
		fputc('"', out);
	}
	if (b->module) {
		fputs(" data-m=\"", out);
		plumb_svg_text(out, base_name(b->module));
		fputc('"', out);
	}
	fputs("><title>", out);
	plumb_svg_text(out, name);
	fprintf(out, " (%s ", plumb_format_u64(b->width, num, sizeof num));
	plumb_svg_text(out, fl->event);
	const char *p = plumb_format_fixed(b->pct, 2, pct, sizeof pct);
	if (fl->differential)
		fprintf(out, ", %s%%; change %+" PRId64 ")", p ? p : "?", b->change);
	else
		fprintf(out, ", %s%%)", p ? p : "?");
	/* %.6f: the width is the cost's exact share to a millionth of a pixel */
	fprintf(out, "</title><rect x=\"%.6f\" y=\"%.1f\" width=\"%.6f\" height=\"%d\" fill=\"%s\" "
		"rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\">", x, y, w, BOX_H - 1, fill, x + 3, y + BOX_H - 4.5);
	write_label(out, name, n ? shortest : NULL, w);
	fputs("</text></g>\n", out);
}

int plumb_flame_write_svg(const plumb_table *t, FILE *out, plumb_error *err)
{
	const plumb_flame *fl = t->flame;
	double height = TOP + BOTTOM + (double)(fl->max_depth + 1) * BOX_H;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
		"viewBox=\"0 0 %d %.0f\" font-family=\"Verdana, DejaVu Sans, sans-serif\" "
		"font-size=\"%d\">\n"
		"<style>g.f { cursor: pointer; } g.f:hover rect { stroke: #000; stroke-width: 0.5; } "
		"text { fill: #000; } .ctl { cursor: pointer; fill: #1f4f99; } "
		"g.f text { pointer-events: none; }</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fdfdf6\"/>\n",
		WIDTH + 2 * XPAD, height, WIDTH + 2 * XPAD, height, FONT);
	char num[32];
	fprintf(out, "<text x=\"%d\" y=\"22\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">",
		WIDTH / 2 + XPAD);
	plumb_svg_text(out, t->title);
	fprintf(out, "</text>\n<text x=\"%d\" y=\"40\" text-anchor=\"middle\" fill=\"#555\">Total: %s ",
		WIDTH / 2 + XPAD, plumb_format_u64(fl->total, num, sizeof num));
	plumb_svg_text(out, fl->event);
	fputs(" \xc2\xb7 widths are inclusive cost \xc2\xb7 click a box to zoom</text>\n", out);
	fprintf(out, "<text id=\"unzoom\" class=\"ctl\" x=\"%d\" y=\"22\" style=\"display:none\">Reset zoom</text>\n"
		"<text id=\"search\" class=\"ctl\" x=\"%d\" y=\"22\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"clear\" class=\"ctl\" x=\"%d\" y=\"40\" text-anchor=\"end\" style=\"display:none\">Clear search</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%.0f\"></text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%.0f\" text-anchor=\"end\"></text>\n",
		XPAD, WIDTH + XPAD, WIDTH + XPAD, XPAD, height - 9, WIDTH + XPAD, height - 9);
	if (fl->total == 0) {
		fprintf(out, "<text x=\"%d\" y=\"%d\">no cost to draw</text>\n", XPAD, TOP + 12);
	} else {
		fputs("<g id=\"frames\">\n", out);
		for (size_t i = 0; i < fl->nboxes; i++) {
			const plumb_flame_box *b = &fl->boxes[i];
			if ((double)b->width * WIDTH / (double)fl->total >= MIN_PX)
				write_box(out, fl, b, height);
		}
		fputs("</g>\n", out);
	}
	write_script(out);
	fputs("</svg>\n", out);
	return plumb_output_flush(out, "SVG flame graph", err);
}
