/* plumb: a view as one self-contained HTML report (report --format html).
 *
 * Everything is in the one file, nothing is fetched: the flame graph (the
 * table's attached flame view, drawn by flame_svg.c, inline), the view's
 * rows as a sortable, filterable table, the callers and callees of the
 * function clicked (from the function summary), and the other attached
 * views (the parts) as plain tables. Rows and summary are embedded as JSON
 * and drawn by a small script; at most MAX_DRAWN rows are drawn at a time,
 * and the page says so, so that a profile of many functions stays usable.
 * The writer only reads the table.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/html_internal.h"
#include "output/output_internal.h"
#include "plumb/profile.h"
#include "plumb/output.h"

enum { MAX_DRAWN = HTML_MAX_DRAWN };
/* Callers and callees kept per function, heaviest first: a profile of
 * thousands of functions that all call each other stays megabytes. */
enum { MAX_ARCS = 40 };

/* s as a JSON string that can sit inside <script>: '<', '>' and '&' escaped. */
void html_json_str(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c < 0x20 || *c == '<' || *c == '>' || *c == '&')
			fprintf(out, "\\u%04x", *c);
		else
			fputc(*c, out);
	}
	fputc('"', out);
}

/* A cell as a JSON value: numbers as numbers (a u64 past 2^53 loses
 * precision in the browser, never in the file), null when unknown. */
void html_json_cell(FILE *out, const plumb_cell *c)
{
	char buf[64];
	const char *f;
	switch (c->type) {
	case PLUMB_CELL_U64:
		fprintf(out, "%" PRIu64, c->u);
		return;
	case PLUMB_CELL_INT:
		fprintf(out, "%" PRId64, c->i);
		return;
	case PLUMB_CELL_PCT:
	case PLUMB_CELL_NUM:
		f = plumb_format_fixed(c->type == PLUMB_CELL_PCT ? c->pct : c->num, 6, buf, sizeof buf);
		fputs(f ? f : "null", out);
		return;
	case PLUMB_CELL_BIG:
		fprintf(out, "%.0Lf", *c->big);
		return;
	case PLUMB_CELL_STR:
		html_json_str(out, c->s);
		return;
	case PLUMB_CELL_NULL:
		break;
	}
	fputs("null", out);
}

const char *html_cell_type_name(plumb_cell_type t)
{
	switch (t) {
	case PLUMB_CELL_U64: return "u64";
	case PLUMB_CELL_PCT: return "pct";
	case PLUMB_CELL_STR: return "str";
	case PLUMB_CELL_INT: return "int";
	case PLUMB_CELL_NUM: return "num";
	case PLUMB_CELL_BIG: return "big";
	case PLUMB_CELL_NULL: break;
	}
	return "null";
}

static void json_costs(FILE *out, const uint64_t *v, size_t n)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", v ? v[i] : 0);
	fputc(']', out);
}

static void json_arcs(FILE *out, const plumb_table_arc *a, size_t n, size_t nev)
{
	fputc('[', out);
	for (size_t i = 0; i < n && i < MAX_ARCS; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		html_json_str(out, a[i].other.name);
		if (a[i].calls == PLUMB_COUNT_UNKNOWN)
			fputs(",\"calls\":null", out);
		else
			fprintf(out, ",\"calls\":%" PRIu64, a[i].calls);
		fputs(",\"cost\":", out);
		json_costs(out, a[i].attributed, nev);
		fputc('}', out);
	}
	fputc(']', out);
}

static void json_summary(FILE *out, const plumb_table_summary *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputs("{\"events\":[", out);
	for (size_t e = 0; e < s->nevents; e++) {
		fputs(e ? "," : "", out);
		html_json_str(out, s->events[e].name);
	}
	fputs("],\"totals\":", out);
	json_costs(out, s->totals, s->nevents);
	fputs(",\"functions\":[", out);
	for (size_t i = 0; i < s->nfunctions; i++) {
		const plumb_table_function *f = &s->functions[i];
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
		html_json_str(out, f->ref.name);
		fputs(",\"file\":", out);
		html_json_str(out, f->ref.file);
		fputs(",\"module\":", out);
		html_json_str(out, f->ref.module);
		fputs(",\"exclusive\":", out);
		json_costs(out, f->exclusive, s->nevents);
		fputs(",\"inclusive\":", out);
		json_costs(out, f->inclusive, s->nevents);
		if (f->calls == PLUMB_COUNT_UNKNOWN)
			fputs(",\"calls\":null", out);
		else
			fprintf(out, ",\"calls\":%" PRIu64, f->calls);
		fprintf(out, ",\"ncallers\":%zu,\"ncallees\":%zu", f->ncallers, f->ncallees);
		fputs(",\"callers\":", out);
		json_arcs(out, f->callers, f->ncallers, s->nevents);
		fputs(",\"callees\":", out);
		json_arcs(out, f->callees, f->ncallees, s->nevents);
		fputc('}', out);
	}
	fputs("]}", out);
}

/* The view's columns, rows and summary: what the script draws. */
static void write_data(FILE *out, const plumb_table *t)
{
	fputs("<script type=\"application/json\" id=\"pl-data\">{\"view\":", out);
	html_json_str(out, t->view);
	fprintf(out, ",\"maxDrawn\":%d,\"cols\":[", MAX_DRAWN);
	for (size_t c = 0; c < t->ncols; c++) {
		fputs(c ? ",{\"key\":" : "{\"key\":", out);
		html_json_str(out, t->cols[c].key);
		fputs(",\"title\":", out);
		html_json_str(out, t->cols[c].title);
		fprintf(out, ",\"type\":\"%s\",\"name\":%s}", html_cell_type_name(t->cols[c].type),
			t->cols[c].name_column ? "true" : "false");
	}
	fputs("],\"rows\":[", out);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs(r ? ",\n[" : "\n[", out);
		for (size_t c = 0; c < t->ncols; c++) {
			if (c)
				fputc(',', out);
			html_json_cell(out, &t->rows[r].cells[c]);
		}
		fprintf(out, ",%" PRIu32 "]", t->rows[r].depth);
	}
	fputs("],\"summary\":", out);
	json_summary(out, t->summary);
	fputs("}</script>\n", out);
}

/* A cell as HTML text, as the text writer prints it. */
static void html_cell(FILE *out, const plumb_cell *c)
{
	char buf[64];
	const char *f = NULL;
	switch (c->type) {
	case PLUMB_CELL_U64:
		f = plumb_format_u64(c->u, buf, sizeof buf);
		break;
	case PLUMB_CELL_INT:
		snprintf(buf, sizeof buf, "%" PRId64, c->i);
		f = buf;
		break;
	case PLUMB_CELL_PCT:
		f = plumb_format_fixed(c->pct, 1, buf, sizeof buf);
		break;
	case PLUMB_CELL_NUM:
		f = plumb_format_fixed(c->num, 3, buf, sizeof buf);
		break;
	case PLUMB_CELL_BIG:
		snprintf(buf, sizeof buf, "%.0Lf", *c->big);
		f = buf;
		break;
	case PLUMB_CELL_STR:
		plumb_svg_text(out, c->s);
		return;
	case PLUMB_CELL_NULL:
		break;
	}
	fputs(f ? f : "-", out);
}

/* An attached view other than the flame graph, drawn here (few rows). */
void html_static_table(FILE *out, const plumb_table *v)
{
	fputs("<h3>", out);
	plumb_svg_text(out, v->title);
	fputs("</h3>\n<table class=\"pl-grid\"><thead><tr>", out);
	for (size_t c = 0; c < v->ncols; c++) {
		fputs(v->cols[c].type == PLUMB_CELL_STR ? "<th>" : "<th class=\"n\">", out);
		plumb_svg_text(out, v->cols[c].title);
		fputs("</th>", out);
	}
	fputs("</tr></thead><tbody>\n", out);
	size_t n = v->nrows < MAX_DRAWN ? v->nrows : MAX_DRAWN;
	for (size_t r = 0; r < n; r++) {
		fputs("<tr>", out);
		for (size_t c = 0; c < v->ncols; c++) {
			const plumb_cell *cell = &v->rows[r].cells[c];
			fputs(cell->type == PLUMB_CELL_STR ? "<td>" : "<td class=\"n\">", out);
			html_cell(out, cell);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
	if (n < v->nrows)
		fprintf(out, "<p class=\"pl-note\">The first %zu rows of %zu are shown.</p>\n", n, v->nrows);
}

/* The flame graph SVG, inline (its XML declaration left out). */
static int write_flame(FILE *out, const plumb_table *fv, plumb_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		return plumb_fail_nomem(err);
	int rc = plumb_flame_write_svg(fv, mem, err);
	if (fclose(mem) && rc == 0)
		rc = plumb_fail_nomem(err);
	if (rc == 0) {
		const char *s = buf;
		if (strncmp(s, "<?xml", 5) == 0 && strchr(s, '\n'))
			s = strchr(s, '\n') + 1;
		fputs(s, out);
	}
	free(buf);
	return rc;
}

static const char style[] =
	"<style>\n"
	"body { font: 14px/1.4 system-ui, 'DejaVu Sans', sans-serif; margin: 0 1.5em 2em; color: #222; }\n"
	"h1 { font-size: 1.4em; margin: .6em 0 .2em; } h2 { font-size: 1.15em; margin: 1.2em 0 .4em; }\n"
	"h3 { font-size: 1em; }\n"
	"nav a { margin-right: 1em; } .pl-note { color: #555; }\n"
	"#pl-flame svg { max-width: 100%; height: auto; border: 1px solid #ddd; }\n"
	".pl-grid { border-collapse: collapse; font-variant-numeric: tabular-nums; }\n"
	".pl-grid th, .pl-grid td { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: left; "
	"white-space: nowrap; }\n"
	".pl-grid th { background: #f3f3ee; position: sticky; top: 0; }\n"
	".pl-grid .n { text-align: right; }\n"
	"#pl-flat th { cursor: pointer; user-select: none; }\n"
	"#pl-flat tbody tr { cursor: pointer; } #pl-flat tbody tr:hover { background: #fff6d5; }\n"
	"#pl-flat tr.sel { background: #ffe89a; }\n"
	".pl-scroll { max-height: 32em; overflow: auto; border: 1px solid #ddd; display: inline-block; }\n"
	"#pl-calls a { color: #1f4f99; cursor: pointer; }\n"
	".pl-src td.code { font-family: 'DejaVu Sans Mono', monospace; white-space: pre; }\n"
	".pl-src tr.hot { background: #fff3c4; }\n"
	".pl-plot svg { max-width: 100%; height: auto; }\n"
	"</style>\n";

static const char script[] =
	"<script>\n"
	"(function () {\n"
	"'use strict';\n"
	"var D = JSON.parse(document.getElementById('pl-data').textContent);\n"
	"var cols = D.cols, rows = D.rows, S = D.summary;\n"
	"var nameCol = cols.findIndex(function (c) { return c.name; });\n"
	"function fmt(v, type) {\n"
	"  if (v === null || v === undefined) return '-';\n"
	"  if (type === 'u64' || type === 'big') return Number(v).toLocaleString('en-US');\n"
	"  if (type === 'pct') return Number(v).toFixed(1);\n"
	"  if (type === 'num') return Number(v).toFixed(3);\n"
	"  return String(v);\n"
	"}\n"
	"function el(tag, text, cls) { var e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }\n"
	"var numeric = function (c) { return c.type !== 'str'; };\n"
	"var sortCol = -1, sortDesc = true, filter = '', selected = null;\n"
	"var head = document.querySelector('#pl-flat thead tr'), body = document.querySelector('#pl-flat tbody');\n"
	"cols.forEach(function (c, i) {\n"
	"  var th = el('th', c.title, numeric(c) ? 'n' : '');\n"
	"  th.title = 'sort by ' + c.title;\n"
	"  th.addEventListener('click', function () {\n"
	"    if (sortCol === i) sortDesc = !sortDesc; else { sortCol = i; sortDesc = numeric(c); }\n"
	"    draw();\n"
	"  });\n"
	"  head.appendChild(th);\n"
	"});\n"
	"function draw() {\n"
	"  var order = [];\n"
	"  for (var r = 0; r < rows.length; r++)\n"
	"    if (!filter || (nameCol >= 0 && String(rows[r][nameCol]).toLowerCase().indexOf(filter) >= 0)) order.push(r);\n"
	"  if (sortCol >= 0) {\n"
	"    var c = sortCol, num = numeric(cols[c]);\n"
	"    order.sort(function (a, b) {\n"
	"      var x = rows[a][c], y = rows[b][c], d;\n"
	"      if (x === null) return 1; if (y === null) return -1;\n"
	"      d = num ? x - y : String(x).localeCompare(String(y));\n"
	"      return (sortDesc ? -d : d) || a - b;\n"
	"    });\n"
	"  }\n"
	"  body.textContent = '';\n"
	"  var n = Math.min(order.length, D.maxDrawn);\n"
	"  for (var i = 0; i < n; i++) {\n"
	"    var row = rows[order[i]], tr = el('tr');\n"
	"    cols.forEach(function (c, j) {\n"
	"      var td = el('td', fmt(row[j], c.type), numeric(c) ? 'n' : '');\n"
	"      if (j === nameCol && row[row.length - 1]) td.style.paddingLeft = (8 + 12 * row[row.length - 1]) + 'px';\n"
	"      tr.appendChild(td);\n"
	"    });\n"
	"    if (nameCol >= 0) {\n"
	"      var name = row[nameCol];\n"
	"      if (name === selected) tr.className = 'sel';\n"
	"      tr.addEventListener('click', function () { show(name); });\n"
	"    }\n"
	"    body.appendChild(tr);\n"
	"  }\n"
	"  document.getElementById('pl-shown').textContent = order.length > n\n"
	"    ? 'The first ' + n + ' of ' + order.length + ' rows are drawn' + (filter ? ' (of ' + rows.length + ' in all)' : '') + ': filter or sort to see others.'\n"
	"    : n + ' of ' + rows.length + ' rows drawn.';\n"
	"}\n"
	"document.getElementById('pl-filter').addEventListener('input', function (e) { filter = e.target.value.toLowerCase(); draw(); });\n"
	"var byName = {};\n"
	"if (S) S.functions.forEach(function (f) { if (!(f.name in byName)) byName[f.name] = f; });\n"
	"function pct(v, e) { return S.totals[e] ? ' (' + (100 * v / S.totals[e]).toFixed(1) + '%)' : ''; }\n"
	"function arcs(title, list, total) {\n"
	"  var box = el('div'); box.appendChild(el('h3', title + ' (' + total + ')'));\n"
	"  if (!list.length) { box.appendChild(el('p', 'none', 'pl-note')); return box; }\n"
	"  var t = el('table', undefined, 'pl-grid'), h = el('tr');\n"
	"  h.appendChild(el('th', 'Function'));\n"
	"  S.events.forEach(function (e) { h.appendChild(el('th', e, 'n')); });\n"
	"  h.appendChild(el('th', 'Calls', 'n')); t.appendChild(h);\n"
	"  list.forEach(function (a) {\n"
	"    var tr = el('tr'), td = el('td'), link = el('a', a.name);\n"
	"    link.addEventListener('click', function () { show(a.name); });\n"
	"    td.appendChild(link); tr.appendChild(td);\n"
	"    a.cost.forEach(function (v, e) { tr.appendChild(el('td', fmt(v, 'u64') + pct(v, e), 'n')); });\n"
	"    tr.appendChild(el('td', fmt(a.calls, 'u64'), 'n'));\n"
	"    t.appendChild(tr);\n"
	"  });\n"
	"  box.appendChild(t);\n"
	"  if (total > list.length) box.appendChild(el('p', 'The heaviest ' + list.length + ' of ' + total + ' are shown.', 'pl-note'));\n"
	"  return box;\n"
	"}\n"
	"function show(name) {\n"
	"  selected = name; draw();\n"
	"  var out = document.getElementById('pl-callinfo'); out.textContent = '';\n"
	"  var f = S && byName[name];\n"
	"  if (!f) { out.appendChild(el('p', name + ': not in the function summary (its rows are limited or hidden).', 'pl-note')); return; }\n"
	"  out.appendChild(el('h3', f.name));\n"
	"  var where = [f.file, f.module].filter(function (x) { return x; }).join(' in ');\n"
	"  if (where) out.appendChild(el('p', where, 'pl-note'));\n"
	"  var t = el('table', undefined, 'pl-grid'), h = el('tr');\n"
	"  ['Event', 'Exclusive', 'Inclusive'].forEach(function (x, i) { h.appendChild(el('th', x, i ? 'n' : '')); });\n"
	"  t.appendChild(h);\n"
	"  S.events.forEach(function (e, i) {\n"
	"    var tr = el('tr'); tr.appendChild(el('td', e));\n"
	"    tr.appendChild(el('td', fmt(f.exclusive[i], 'u64') + pct(f.exclusive[i], i), 'n'));\n"
	"    tr.appendChild(el('td', fmt(f.inclusive[i], 'u64') + pct(f.inclusive[i], i), 'n'));\n"
	"    t.appendChild(tr);\n"
	"  });\n"
	"  out.appendChild(t);\n"
	"  if (f.calls !== null) out.appendChild(el('p', 'Calls: ' + fmt(f.calls, 'u64')));\n"
	"  out.appendChild(arcs('Callers', f.callers, f.ncallers));\n"
	"  out.appendChild(arcs('Callees', f.callees, f.ncallees));\n"
	"  showLines(name); showPlot(name);\n"
	"  document.getElementById('pl-calls').scrollIntoView({ block: 'nearest' });\n"
	"}\n"
	"/* source lines: the lines view's rows of the function, with the text */\n"
	"var LE = document.getElementById('pl-lines-data'), L = LE ? JSON.parse(LE.textContent) : null;\n"
	"function lcol(k) { return L ? L.cols.findIndex(function (c) { return c.key === k; }) : -1; }\n"
	"var lFn = lcol('function'), lFile = lcol('file'), lLine = lcol('line');\n"
	"var lCost = L ? L.cols.map(function (c, i) { return i; }).filter(function (i) {\n"
	"  var c = L.cols[i]; return c.type !== 'str' && i !== lLine && c.key !== 'cumulative'; }) : [];\n"
	"function showLines(name) {\n"
	"  var out = document.getElementById('pl-lineinfo');\n"
	"  if (!L) return;\n"
	"  out.textContent = '';\n"
	"  out.appendChild(el('h3', name));\n"
	"  var mine = L.rows.filter(function (r) { return r[lFn] === name; });\n"
	"  if (!mine.length) {\n"
	"    out.appendChild(el('p', 'No line costs for ' + name + (L.total > L.rows.length\n"
	"      ? ' among the ' + L.rows.length + ' heaviest lines of ' + L.total + ' kept in this report.' : '.'), 'pl-note'));\n"
	"    return;\n"
	"  }\n"
	"  if (mine.every(function (r) { return r[lLine] === null; })) {\n"
	"    out.appendChild(el('p', 'No line information for ' + name + ' in this profile: its cost is on the function as a whole.', 'pl-note'));\n"
	"    return;\n"
	"  }\n"
	"  var files = {};\n"
	"  mine.forEach(function (r) { var f = r[lFile] || ''; (files[f] = files[f] || []).push(r); });\n"
	"  Object.keys(files).forEach(function (file) {\n"
	"    var rs = files[file].sort(function (a, b) { return (a[lLine] || 0) - (b[lLine] || 0); });\n"
	"    var src = file && L.sources[file], by = {};\n"
	"    rs.forEach(function (r) { by[r[lLine]] = r; });\n"
	"    out.appendChild(el('p', (file || 'no file') + (src ? '' : ': line numbers and costs only, ' +\n"
	"      (L.unread[file] ? 'the source was not embedded (' + L.unread[file] + ' when the report was written)'\n"
	"                      : 'no source text')), 'pl-note'));\n"
	"    var t = el('table', undefined, 'pl-grid pl-src'), h = el('tr');\n"
	"    h.appendChild(el('th', 'Line', 'n'));\n"
	"    lCost.forEach(function (i) { h.appendChild(el('th', L.cols[i].title, 'n')); });\n"
	"    if (src) h.appendChild(el('th', 'Source'));\n"
	"    t.appendChild(h);\n"
	"    var nums = rs.map(function (r) { return r[lLine]; });\n"
	"    if (src) { /* the embedded lines of the span, the costed ones marked */\n"
	"      var lo = nums[0] || 1, hi = nums[nums.length - 1] || 0, all = [];\n"
	"      for (var n = Math.max(1, lo - 3); n <= hi + 3; n++) if ((n in src) || by[n]) all.push(n);\n"
	"      nums = all;\n"
	"    }\n"
	"    var last = null;\n"
	"    nums.forEach(function (n) {\n"
	"      if (src && last !== null && n !== null && n > last + 1) { /* lines left out */\n"
	"        var gap = el('tr'); gap.appendChild(el('td', '\\u22ee', 'n')); t.appendChild(gap);\n"
	"      }\n"
	"      last = n;\n"
	"      var r = by[n], tr = el('tr', undefined, r ? 'hot' : '');\n"
	"      tr.appendChild(el('td', n === null ? '-' : String(n), 'n'));\n"
	"      lCost.forEach(function (i) { tr.appendChild(el('td', r ? fmt(r[i], L.cols[i].type) : '', 'n')); });\n"
	"      if (src) tr.appendChild(el('td', src[n] !== undefined ? src[n] : '', 'code'));\n"
	"      t.appendChild(tr);\n"
	"    });\n"
	"    out.appendChild(t);\n"
	"  });\n"
	"}\n"
	"/* cost plots: one set per charted routine */\n"
	"var plots = document.querySelectorAll('#pl-plots .pl-plot'), pick = document.getElementById('pl-plot-pick');\n"
	"function showPlot(name) {\n"
	"  var any = false;\n"
	"  Array.prototype.forEach.call(plots, function (d) { if (d.dataset.routine === name) any = true; });\n"
	"  if (!any) return;\n"
	"  Array.prototype.forEach.call(plots, function (d) { d.hidden = d.dataset.routine !== name; });\n"
	"  if (pick) pick.value = name;\n"
	"}\n"
	"Array.prototype.forEach.call(plots, function (d) {\n"
	"  var o = el('option', d.dataset.routine); o.value = d.dataset.routine; pick.appendChild(o);\n"
	"});\n"
	"if (pick) pick.addEventListener('change', function () { showPlot(pick.value); });\n"
	"Array.prototype.forEach.call(document.querySelectorAll('#pl-flame g.f'), function (g) {\n"
	"  g.addEventListener('click', function () {\n"
	"    var t = g.firstElementChild.textContent, n = t.slice(0, t.lastIndexOf(' ('));\n"
	"    if (byName[n]) show(n);\n"
	"  });\n"
	"});\n"
	"if (typeof plTimeline === 'function') plTimeline(cols, rows, draw);\n"
	"draw();\n"
	"/* report.html#fn=NAME opens with NAME's callers and callees */\n"
	"if (location.hash.indexOf('#fn=') === 0) show(decodeURIComponent(location.hash.slice(4)));\n"
	"})();\n"
	"</script>\n";

/* The table itself or its attached view of that name; NULL if none. */
static const plumb_table *view_named(const plumb_table *t, const char *name)
{
	if (t->view && strcmp(t->view, name) == 0)
		return t;
	for (size_t i = 0; i < t->nviews; i++)
		if (t->views[i]->view && strcmp(t->views[i]->view, name) == 0)
			return t->views[i];
	return NULL;
}

int plumb_table_write_html(const plumb_table *t, FILE *out, plumb_error *err)
{
	const plumb_table *flame = NULL;
	for (size_t i = 0; i < t->nviews && !flame; i++)
		if (t->views[i]->flame)
			flame = t->views[i];
	if (!flame && t->flame)
		flame = t;
	const plumb_table *lines = view_named(t, "lines"), *inputs = view_named(t, "inputs");
	const plumb_table *timeline = view_named(t, "timeline");
	if (timeline == t)
		timeline = NULL;   /* the view itself is the table */
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"plumb\">\n<title>plumb report: ", out);
	plumb_svg_text(out, t->title);
	fputs("</title>\n", out);
	fputs(style, out);
	fputs("</head><body>\n<h1>plumb report</h1>\n<p id=\"pl-totals\">", out);
	const plumb_table_summary *s = t->summary;
	if (s) {
		fputs("Total:", out);
		for (size_t e = 0; e < s->nevents; e++) {
			char num[32];
			fprintf(out, "%s %s ", e ? "," : "", plumb_format_u64(s->totals[e], num, sizeof num));
			plumb_svg_text(out, s->events[e].name);
		}
		if (s->inclusive_estimated)
			fputs(" (inclusive costs are estimates)", out);
	}
	fputs("</p>\n<nav><a href=\"#pl-flame\">Flame graph</a>", out);
	if (timeline)
		fputs("<a href=\"#pl-timeline\">Timeline</a>", out);
	fputs("<a href=\"#pl-flat\">", out);
	plumb_svg_text(out, t->title);
	fputs("</a><a href=\"#pl-calls\">Callers and callees</a><a href=\"#pl-lines\">Source lines</a>", out);
	if (inputs)
		fputs("<a href=\"#pl-plots\">Cost plots</a>", out);
	fputs("<a href=\"#pl-parts\">Threads and parts</a></nav>\n"
	      "<section id=\"pl-flame\"><h2>Flame graph</h2>\n", out);
	if (flame && flame->flame->nboxes) {
		if (write_flame(out, flame, err))
			return -1;
	} else {
		fputs("<p class=\"pl-note\">No call stacks to draw.</p>\n", out);
	}
	fputs("</section>\n", out);
	if (timeline)
		html_write_timeline(out, timeline);
	fputs("<section id=\"pl-flat\"><h2>", out);
	plumb_svg_text(out, t->title);
	fputs("</h2>\n<p><input id=\"pl-filter\" type=\"search\" placeholder=\"filter by name\" size=\"40\"> "
	      "Click a column title to sort, a row for its callers and callees.</p>\n"
	      "<p id=\"pl-shown\" class=\"pl-note\"></p>\n"
	      "<div class=\"pl-scroll\"><table class=\"pl-grid\"><thead><tr></tr></thead><tbody></tbody></table></div>\n",
	      out);
	for (size_t i = 0; i < t->nnotes; i++) {
		fputs("<p class=\"pl-note\">", out);
		plumb_svg_text(out, t->notes[i]);
		fputs("</p>\n", out);
	}
	fputs("</section>\n<section id=\"pl-calls\"><h2>Callers and callees</h2>\n"
	      "<div id=\"pl-callinfo\"><p class=\"pl-note\">Click a function in the table or the flame graph.</p></div>\n"
	      "</section>\n<section id=\"pl-lines\"><h2>Source lines</h2>\n"
	      "<div id=\"pl-lineinfo\"><p class=\"pl-note\">", out);
	fputs(lines ? "Click a function for its source lines with their costs.</p></div>\n"
		    : "No line costs in this view.</p></div>\n", out);
	fputs("</section>\n", out);
	if (inputs) {
		fputs("<section id=\"pl-plots\"><h2>Cost plots</h2>\n<p>Routine: "
		      "<select id=\"pl-plot-pick\"></select> (or click one)</p>\n", out);
		html_write_plots(out, inputs, inputs != t);
		fputs("</section>\n", out);
	}
	fputs("<section id=\"pl-parts\"><h2>Threads and parts</h2>\n", out);
	for (size_t i = 0; i < t->nviews; i++)
		if (!t->views[i]->flame && t->views[i] != lines && t->views[i] != inputs &&
		    t->views[i] != timeline)
			html_static_table(out, t->views[i]);
	fputs("</section>\n", out);
	write_data(out, t);
	if (lines && html_write_lines(out, lines))
		return plumb_fail_nomem(err);
	fputs(script, out);
	fputs("</body></html>\n", out);
	return plumb_output_flush(out, "HTML report", err);
}
