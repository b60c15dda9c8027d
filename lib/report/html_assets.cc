// The HTML report's style sheet and script, inline in every page (no network). The
// script sorts the kernel table, folds the region tree and draws the timeline from the
// page's JSON data (html_report.cc), re-binning its stored bins for each zoom level.
// lint: table
#include "lib/report/html_sections.h"

namespace cuscope::report {

const char* HtmlStyle() {  // lint: table
  return R"CSS(
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#1f3b57;color:#fff;padding:10px 20px}
header h1{margin:0;font-size:20px}
header .cmd{margin:4px 0;font-family:monospace;word-break:break-all}
header nav a{color:#cfe3ff;margin-right:12px}
main{padding:0 20px 40px}
section{margin-top:24px}
h2{font-size:17px;border-bottom:1px solid #ccc;padding-bottom:4px}
table{border-collapse:collapse;font-size:13px}
th,td{padding:3px 8px;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.hot td{background:#fde8e6}table.source code{white-space:pre}
td.name{font-family:monospace;max-width:60em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
table.kv th{font-weight:600;color:#444;white-space:nowrap}
table.sortable th{cursor:pointer;user-select:none;background:#eef2f6}
table.sortable th.asc::after{content:" \25B2"}
table.sortable th.desc::after{content:" \25BC"}
#region-tree tr.parent td.name .tw::before{content:"\25BE ";cursor:pointer}
#region-tree tr.parent.folded td.name .tw::before{content:"\25B8 "}
#region-tree tr.hidden{display:none}
.finding{border-left:5px solid #999;background:#fff;margin:8px 0;padding:6px 12px}
.finding.high{border-color:#c62828}.finding.medium{border-color:#ef8f00}.finding.low{border-color:#7a9cc6}
.finding p{margin:4px 0}
.finding .sev{text-transform:uppercase;font-size:11px;font-weight:700;color:#555}
.finding .gain{color:#555}
.finding .advice{font-style:italic}
.finding .where,.finding .evidence{font-size:12px;color:#555;font-family:monospace}
.finding .evidence span{margin-right:10px}
.note,.more{color:#666;font-size:12px}
.outcome{font-weight:600}
.svg svg{max-width:100%;height:auto;background:#fff}
details.panel{background:#fff;border:1px solid #ddd;margin:6px 0;padding:4px 10px}
details.panel summary{cursor:pointer}
table.metrics td{font-family:monospace}
#tl{width:100%;border:1px solid #ccc;background:#fff;cursor:crosshair;display:block}
)CSS";
}

const char* HtmlScript() {  // lint: table
  return R"JS(
(function () {
  'use strict';
  // Sortable tables: a click on a header sorts by that column (numbers by data-v).
  function cellKey(td) {
    return td.dataset.v !== undefined ? parseFloat(td.dataset.v) : td.textContent.toLowerCase();
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var heads = table.querySelectorAll('thead th');
    heads.forEach(function (th, col) {
      th.addEventListener('click', function () {
        var asc = !th.classList.contains('asc');
        heads.forEach(function (h) { h.classList.remove('asc', 'desc'); });
        th.classList.add(asc ? 'asc' : 'desc');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellKey(a.cells[col]), y = cellKey(b.cells[col]);
          var c = x < y ? -1 : x > y ? 1 : 0;
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });

  // Region tree: rows in path order with data-depth; a click on a parent folds it.
  var tree = document.getElementById('region-tree');
  if (tree) {
    var rows = Array.prototype.slice.call(tree.tBodies[0].rows);
    var depth = rows.map(function (r) { return parseInt(r.dataset.depth, 10); });
    rows.forEach(function (r, i) {
      if (i + 1 < rows.length && depth[i + 1] > depth[i]) r.classList.add('parent');
    });
    var refresh = function () {
      var hideBelow = Infinity;
      rows.forEach(function (r, i) {
        if (depth[i] <= hideBelow) hideBelow = Infinity;
        r.classList.toggle('hidden', depth[i] > hideBelow);
        if (hideBelow === Infinity && r.classList.contains('folded')) hideBelow = depth[i];
      });
    };
    rows.forEach(function (r) {
      r.addEventListener('click', function () {
        if (!r.classList.contains('parent')) return;
        r.classList.toggle('folded');
        refresh();
      });
    });
  }

  // Timeline: lanes of stored bins, re-binned to the canvas's pixel columns.
  var dataNode = document.getElementById('cuscope-data');
  var canvas = document.getElementById('tl');
  var info = document.getElementById('tl-info');
  if (!dataNode || !canvas) return;
  var tl = JSON.parse(dataNode.textContent).timeline;
  if (!tl.lanes.length) {
    info.textContent = 'No kernel, copy or memset with usable times.';
    canvas.dataset.lanes = '0';
    canvas.style.display = 'none';
    return;
  }
  var LABEL = 150, LANE = 20, AXIS = 18;
  var lanes = tl.lanes.map(function (l) {
    var k = new Uint16Array(tl.bins), m = new Uint16Array(tl.bins), top = new Int32Array(tl.bins);
    top.fill(-1);
    for (var i = 0; i < l.bin.length; ++i) { k[l.bin[i]] = l.k[i]; m[l.bin[i]] = l.m[i]; top[l.bin[i]] = l.top[i]; }
    return { label: 'GPU ' + l.device + ' stream ' + l.stream, k: k, m: m, top: top, raw: l };
  });
  var view = [0, tl.bins];  // the bins shown, [first, last)
  var drag = null;
  function fmt(ns) {
    var a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
    if (a >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toFixed(3) + ' us';
    return Math.round(ns) + ' ns';
  }
  function plotWidth() { return canvas.width - LABEL; }
  function binAt(x) { return view[0] + (x - LABEL) / plotWidth() * (view[1] - view[0]); }
  function draw() {
    var w = Math.max(canvas.clientWidth, 400);
    canvas.width = w;
    canvas.height = AXIS + LANE * lanes.length;
    var g = canvas.getContext('2d');
    g.clearRect(0, 0, canvas.width, canvas.height);
    g.font = '11px sans-serif';
    g.fillStyle = '#444';
    var span = tl.end_ns - tl.start_ns;
    var t0 = Math.min(view[0] * tl.bin_ns, span), t1 = Math.min(view[1] * tl.bin_ns, span);
    g.fillText(fmt(t0), LABEL, 12);
    var endText = fmt(t1);
    g.fillText(endText, canvas.width - g.measureText(endText).width - 2, 12);
    var pw = plotWidth(), per = (view[1] - view[0]) / pw;
    lanes.forEach(function (lane, li) {
      var y = AXIS + li * LANE;
      g.fillStyle = li % 2 ? '#f4f6f8' : '#fff';
      g.fillRect(0, y, canvas.width, LANE);
      g.fillStyle = '#333';
      g.fillText(lane.label, 4, y + 14);
      for (var px = 0; px < pw; ++px) {
        // Mean busy of the stored bins under this column (or of the one bin it is in).
        var b0 = view[0] + px * per, b1 = b0 + per;
        var i0 = Math.floor(b0), i1 = Math.max(i0 + 1, Math.ceil(b1));
        var ks = 0, ms = 0;
        for (var i = i0; i < i1 && i < tl.bins; ++i) { ks += lane.k[i]; ms += lane.m[i]; }
        var n = i1 - i0, hk = ks / n / 1000 * (LANE - 4), hm = ms / n / 1000 * (LANE - 4);
        if (hk > 0) { g.fillStyle = '#2f6fb0'; g.fillRect(LABEL + px, y + LANE - 2 - hk, 1, Math.max(hk, 1)); }
        if (hm > 0) { g.fillStyle = '#ef8f00'; g.fillRect(LABEL + px, y + LANE - 2 - hk - hm, 1, Math.max(hm, 1)); }
      }
    });
    if (drag) {
      g.fillStyle = 'rgba(47,111,176,0.2)';
      g.fillRect(Math.min(drag.x0, drag.x1), AXIS, Math.abs(drag.x1 - drag.x0), canvas.height - AXIS);
    }
    info.textContent = 'Showing ' + fmt(t1 - t0) + ' of ' + fmt(span) + ' (' + tl.bins + ' bins of ' + fmt(tl.bin_ns) + ').';
  }
  function xOf(e) { return e.clientX - canvas.getBoundingClientRect().left; }
  canvas.addEventListener('mousedown', function (e) { if (xOf(e) > LABEL) drag = { x0: xOf(e), x1: xOf(e) }; });
  canvas.addEventListener('mousemove', function (e) {
    var x = xOf(e), li = Math.floor((e.clientY - canvas.getBoundingClientRect().top - AXIS) / LANE);
    if (drag) { drag.x1 = x; draw(); return; }
    if (x <= LABEL || li < 0 || li >= lanes.length) return;
    var b = Math.floor(binAt(x)), lane = lanes[li];
    if (b < 0 || b >= tl.bins) return;
    var name = lane.top[b] >= 0 ? tl.names[lane.top[b]] : '(no kernel)';
    info.textContent = lane.label + ' at ' + fmt(b * tl.bin_ns) + ': kernels ' + (lane.k[b] / 10) +
        '%, copies ' + (lane.m[b] / 10) + '% of the bin; longest kernel: ' + name;
  });
  window.addEventListener('mouseup', function () {
    if (!drag) return;
    var a = binAt(Math.min(drag.x0, drag.x1)), b = binAt(Math.max(drag.x0, drag.x1));
    drag = null;
    if (b - a >= 1) view = [Math.max(0, a), Math.min(tl.bins, b)];
    draw();
  });
  canvas.addEventListener('dblclick', function () { view = [0, tl.bins]; draw(); });
  window.addEventListener('resize', draw);
  draw();
  canvas.dataset.lanes = String(lanes.length);  // the browser test looks for it
})();
)JS";
}

}  // namespace cuscope::report
