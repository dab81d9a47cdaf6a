/* The HTML report's timeline (a recording with timed samples): a lane of
 * bars per thread and event, as --view timeline draws them, and a range
 * selection (drag over the lanes, or report.html#time=START,END in seconds
 * as --time takes them) that the table follows: its rows are recomputed
 * from each function's cost per bucket (plumb_timeline.fns, computed by
 * the timeline view), so a range shows what plumb report --time would. */
#include <inttypes.h>
#include <stdio.h>

#include "output/html_internal.h"
#include "plumb/table.h"

static void json_u64s(FILE *out, const uint64_t *v, size_t n, size_t stride)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", v[i * stride]);
	fputc(']', out);
}

static void write_data(FILE *out, const plumb_timeline *tl)
{
	size_t nb = tl->nbuckets;
	fprintf(out, "<script type=\"application/json\" id=\"pl-timeline-data\">{\"start\":%.9f,"
		     "\"bucket\":%.9f,\"n\":%zu,\"lanes\":[", tl->start_s, tl->bucket_s, nb);
	for (size_t l = 0; l < tl->nlanes; l++) {
		const plumb_timeline_lane *L = &tl->lanes[l];
		fprintf(out, "%s\n{\"part\":%" PRIu32 ",\"thread\":", l ? "," : "", L->part);
		html_json_str(out, L->thread);
		fputs(",\"event\":", out);
		html_json_str(out, L->event);
		fputs(",\"unit\":", out);
		html_json_str(out, L->unit);
		fputs(",\"v\":", out);
		json_u64s(out, L->values, nb, 1);
		fputc('}', out);
	}
	fputs("],\"events\":[", out);
	for (size_t e = 0; e < tl->nevents; e++) {
		fputs(e ? "," : "", out);
		html_json_str(out, tl->events[e]);
	}
	/* each function's buckets with a cost: [bucket, [excl per event], [incl per event]] */
	fputs("],\"fns\":[", out);
	for (size_t f = 0; f < tl->nfns; f++) {
		const plumb_timeline_fn *fn = &tl->fns[f];
		fputs(f ? ",\n{\"name\":" : "\n{\"name\":", out);
		html_json_str(out, fn->name);
		fputs(",\"module\":", out);
		html_json_str(out, fn->module);
		fputs(",\"b\":[", out);
		int first = 1;
		for (size_t b = 0; b < nb; b++) {
			int any = 0;
			for (size_t e = 0; e < tl->nevents && !any; e++)
				any = fn->incl[e * nb + b] != 0;
			if (!any)
				continue;
			fprintf(out, "%s[%zu,", first ? "" : ",", b);
			json_u64s(out, fn->excl + b, tl->nevents, nb);
			fputc(',', out);
			json_u64s(out, fn->incl + b, tl->nevents, nb);
			fputc(']', out);
			first = 0;
		}
		fputs("]}", out);
	}
	fputs("]}</script>\n", out);
}

/* Defines plTimeline(cols, rows, draw), which the report's script calls
 * with its table: rows are changed in place and drawn again. */
static const char script[] =
	"<script>\n"
	"function plTimeline(cols, rows, draw) {\n"
	"'use strict';\n"
	"var E = document.getElementById('pl-timeline-data'); if (!E) return;\n"
	"var T = JSON.parse(E.textContent), nb = T.n, NS = 'http://www.w3.org/2000/svg';\n"
	"var LW = 230, W = 760, LH = 22, H = T.lanes.length * LH;\n"
	"var svg = document.getElementById('pl-tl-svg'), info = document.getElementById('pl-tl-sel');\n"
	"function s(tag, at, text) { var e = document.createElementNS(NS, tag); for (var k in at) e.setAttribute(k, at[k]); if (text !== undefined) e.textContent = text; return e; }\n"
	"var max = {};\n"
	"T.lanes.forEach(function (l) { l.v.forEach(function (x) { if (x > (max[l.event] || 0)) max[l.event] = x; }); });\n"
	"svg.setAttribute('width', LW + W + 10); svg.setAttribute('height', H + 24);\n"
	"T.lanes.forEach(function (l, i) {\n"
	"  var y = i * LH;\n"
	"  svg.appendChild(s('text', { x: 4, y: y + 15, 'font-size': 12 }, l.thread + ' \\u00b7 ' + l.event));\n"
	"  svg.appendChild(s('rect', { x: LW, y: y + 1, width: W, height: LH - 2, fill: '#f4f4f4' }));\n"
	"  l.v.forEach(function (x, b) {\n"
	"    if (!x) return;\n"
	"    var h = Math.max(1, (LH - 4) * x / max[l.event]);\n"
	"    var r = s('rect', { x: LW + b * W / nb, y: y + LH - 2 - h, width: Math.max(W / nb - 0.5, 0.5), height: h, fill: '#d95f02', 'class': 'pl-bar' });\n"
	"    r.appendChild(s('title', {}, l.thread + ', ' + l.event + ': ' + Number(x).toLocaleString('en-US') + (l.unit ? ' ' + l.unit : '') +\n"
	"      ' in ' + (T.start + b * T.bucket).toFixed(3) + '-' + (T.start + (b + 1) * T.bucket).toFixed(3) + ' s'));\n"
	"    svg.appendChild(r);\n"
	"  });\n"
	"});\n"
	"svg.appendChild(s('text', { x: LW, y: H + 16, 'font-size': 11 }, T.start.toFixed(3) + ' s'));\n"
	"svg.appendChild(s('text', { x: LW + W, y: H + 16, 'font-size': 11, 'text-anchor': 'end' }, (T.start + nb * T.bucket).toFixed(3) + ' s'));\n"
	"var band = s('rect', { x: 0, y: 0, width: 0, height: H, fill: '#1f4f99', 'fill-opacity': 0.2, stroke: '#1f4f99', id: 'pl-tl-band' });\n"
	"band.style.display = 'none'; svg.appendChild(band);\n"
	"/* the table's columns of each event, and the rows as they came */\n"
	"function col(k) { return cols.findIndex(function (c) { return c.key === k; }); }\n"
	"var nameCol = col('function'), modCol = col('module'), cumCol = col('cumulative'), callsCol = col('calls');\n"
	"var evc = T.events.map(function (e) { return { pct: col('percent.' + e), ex: col('exclusive.' + e), inc: col('inclusive.' + e) }; });\n"
	"var orig = rows.map(function (r) { return r.slice(); });\n"
	"var fns = {};\n"
	"T.fns.forEach(function (f) { var k = f.name + '\\t' + (f.module || ''); (fns[k] = fns[k] || []).push(f); });\n"
	"function band_of(a, b) { band.setAttribute('x', LW + a * W / nb); band.setAttribute('width', (b - a + 1) * W / nb); band.style.display = ''; }\n"
	"function clear() {\n"
	"  band.style.display = 'none';\n"
	"  rows.length = 0; orig.forEach(function (r) { rows.push(r.slice()); });\n"
	"  info.textContent = 'Drag over the lanes to select a time range: the table then shows that range only.';\n"
	"  draw();\n"
	"}\n"
	"function apply(a, b) {\n"
	"  if (a > b) { var t = a; a = b; b = t; }\n"
	"  a = Math.max(0, a); b = Math.min(nb - 1, b);\n"
	"  band_of(a, b);\n"
	"  var tot = T.events.map(function () { return 0; });\n"
	"  T.lanes.forEach(function (l) { var e = T.events.indexOf(l.event); if (e < 0) return; for (var i = a; i <= b; i++) tot[e] += l.v[i]; });\n"
	"  rows.length = 0;\n"
	"  orig.forEach(function (r0) {\n"
	"    var r = r0.slice(), list = nameCol >= 0 ? fns[r[nameCol] + '\\t' + (modCol >= 0 && r[modCol] ? r[modCol] : '')] : null;\n"
	"    var ex = T.events.map(function () { return 0; }), inc = ex.slice();\n"
	"    (list || []).forEach(function (f) { f.b.forEach(function (c) {\n"
	"      if (c[0] < a || c[0] > b) return;\n"
	"      for (var e = 0; e < ex.length; e++) { ex[e] += c[1][e]; inc[e] += c[2][e]; }\n"
	"    }); });\n"
	"    evc.forEach(function (c, e) {\n"
	"      if (c.ex >= 0) r[c.ex] = ex[e];\n"
	"      if (c.inc >= 0) r[c.inc] = inc[e];\n"
	"      if (c.pct >= 0) r[c.pct] = tot[e] ? 100 * ex[e] / tot[e] : 0;\n"
	"    });\n"
	"    if (callsCol >= 0) r[callsCol] = null;\n"
	"    if (inc.some(function (x) { return x; })) rows.push(r);\n"
	"  });\n"
	"  /* the flat view's order: exclusive, inclusive, then name, file, module */\n"
	"  var k = evc[0] ? evc[0].ex : -1, q = evc[0] ? evc[0].inc : -1, p = evc[0] ? evc[0].pct : -1, cum = 0;\n"
	"  var fileCol = col('file');\n"
	"  function str(x, y) { return x === y ? 0 : x === null || x === undefined ? 1 : y === null || y === undefined ? -1 : x < y ? -1 : 1; }\n"
	"  if (k >= 0) rows.sort(function (x, y) {\n"
	"    return (y[k] - x[k]) || (q >= 0 ? y[q] - x[q] : 0) || (nameCol >= 0 ? str(x[nameCol], y[nameCol]) : 0) ||\n"
	"      (fileCol >= 0 ? str(x[fileCol], y[fileCol]) : 0) || (modCol >= 0 ? str(x[modCol], y[modCol]) : 0);\n"
	"  });\n"
	"  if (cumCol >= 0 && p >= 0) rows.forEach(function (r) { cum += r[p]; r[cumCol] = cum; });\n"
	"  var t0 = T.start + a * T.bucket, t1 = T.start + (b + 1) * T.bucket;\n"
	"  info.textContent = 'Selected ' + t0.toFixed(3) + '-' + t1.toFixed(3) + ' s (buckets ' + (a + 1) + '-' + (b + 1) + ' of ' + nb +\n"
	"    '): the table shows this range (as plumb report --time ' + t0.toFixed(3) + ',' + t1.toFixed(3) + '), ' +\n"
	"    T.events.map(function (e, i) { return Number(tot[i]).toLocaleString('en-US') + ' ' + e; }).join(', ') +\n"
	"    '; the flame graph, callers and callees and the threads are of the whole recording. Double-click to clear.';\n"
	"  draw();\n"
	"}\n"
	"function bucketAt(ev) {\n"
	"  var box = svg.getBoundingClientRect(), x = (ev.clientX - box.left) * (LW + W + 10) / box.width - LW;\n"
	"  return Math.floor(x * nb / W);\n"
	"}\n"
	"var from = null;\n"
	"svg.addEventListener('mousedown', function (ev) { from = bucketAt(ev); band_of(from, from); ev.preventDefault(); });\n"
	"svg.addEventListener('mousemove', function (ev) { if (from !== null) { var b = bucketAt(ev); band_of(Math.min(from, b), Math.max(from, b)); } });\n"
	"svg.addEventListener('mouseup', function (ev) { if (from !== null) { apply(from, bucketAt(ev)); from = null; } });\n"
	"svg.addEventListener('dblclick', clear);\n"
	"info.textContent = 'Drag over the lanes to select a time range: the table then shows that range only.';\n"
	"/* report.html#time=START,END: seconds from the recording's start, either side may be empty */\n"
	"var m = /^#time=([0-9.]*),([0-9.]*)$/.exec(location.hash);\n"
	"if (m) {\n"
	"  var lo = m[1] === '' ? 0 : Math.floor((Number(m[1]) - T.start) / T.bucket + 1e-6);\n"
	"  var hi = m[2] === '' ? nb - 1 : Math.ceil((Number(m[2]) - T.start) / T.bucket - 1e-6) - 1;\n"
	"  apply(lo, hi);\n"
	"}\n"
	"}\n"
	"</script>\n";

void html_write_timeline(FILE *out, const plumb_table *v)
{
	const plumb_timeline *tl = v->timeline;
	fputs("<section id=\"pl-timeline\"><h2>Timeline</h2>\n", out);
	if (!tl || !tl->nlanes) {
		fputs("<p class=\"pl-note\">No timed samples to draw.</p>\n</section>\n", out);
		return;
	}
	fputs("<p id=\"pl-tl-sel\" class=\"pl-note\"></p>\n"
	      "<div class=\"pl-scroll\"><svg id=\"pl-tl-svg\" xmlns=\"http://www.w3.org/2000/svg\" "
	      "font-family=\"Verdana, sans-serif\" style=\"cursor: crosshair; user-select: none\"></svg></div>\n",
	      out);
	write_data(out, tl);
	fputs(script, out);
	fputs("</section>\n", out);
}
