// Draws the report's charts as inline SVG from the JSON the page carries
// (simsort's report_html::chart), shows each mark's configuration and
// counters on hover, then checks itself: every chart drew the marks its
// data asked for and no script error happened. The check's verdict goes
// into #simsort-check (data-status="ok"), where the browser test reads it.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  // Colours that stay apart on white and for most colour-blind readers.
  var PALETTE = ["#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9",
    "#8c6d00", "#000000", "#7f7f7f", "#a6761d", "#1b9e77", "#7570b3", "#e7298a", "#66a61e"];
  var WIDTH = 800;

  function node(name, attrs, parent, text) {
    var e = document.createElementNS(NS, name);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) { e.textContent = text; }
    if (parent) { parent.appendChild(e); }
    return e;
  }

  function colour(i) { return PALETTE[i % PALETTE.length]; }

  // A number for a tick label: short, no float noise (0.30000000000000004).
  function fmt(v) {
    if (v === 0) { return "0"; }
    var a = Math.abs(v);
    if (a >= 1e9) { return trim(v / 1e9) + "G"; }
    if (a >= 1e6) { return trim(v / 1e6) + "M"; }
    if (a >= 1e3) { return trim(v / 1e3) + "k"; }
    return trim(v);
  }
  function trim(v) { return String(parseFloat(v.toPrecision(4))); }

  // Ticks at 1-2-5 steps covering [lo, hi]; the range widened to them.
  function linear(lo, hi) {
    if (!(hi > lo)) {
      if (lo === 0) { hi = 1; } else { var d = Math.abs(lo) * 0.1; lo -= d; hi += d; }
    }
    var raw = (hi - lo) / 5;
    var p = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
    var m = raw / p;
    var step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
    var start = Math.floor(lo / step + 1e-9) * step;
    var end = Math.ceil(hi / step - 1e-9) * step;
    var ticks = [];
    for (var v = start; v <= end + step * 1e-6; v += step) { ticks.push(parseFloat(v.toPrecision(12))); }
    return { lo: start, hi: end, ticks: ticks, at: function (x) { return (x - start) / (end - start); } };
  }

  // Decades, with 2 and 5 between them when the range is short and every
  // 1..9 when it is shorter still (at least three labelled ticks), labelled
  // below 1 as well.
  function logarithmic(lo, hi) {
    if (!(hi > lo)) { lo /= 2; hi *= 2; }
    lo /= 1.15; hi *= 1.15;
    var e0 = Math.floor(Math.log(lo) / Math.LN10), e1 = Math.ceil(Math.log(hi) / Math.LN10);
    var at = function (mults) {
      var out = [];
      for (var e = e0; e <= e1; e++) {
        mults.forEach(function (m) {
          var v = parseFloat((m * Math.pow(10, e)).toPrecision(6));
          if (v >= lo && v <= hi) { out.push(v); }
        });
      }
      return out;
    };
    var ticks = at(e1 - e0 <= 3 ? [1, 2, 5] : [1]);
    if (ticks.length < 3) { ticks = at([1, 2, 3, 4, 5, 6, 7, 8, 9]); }
    var l0 = Math.log(lo), l1 = Math.log(hi);
    return { lo: lo, hi: hi, ticks: ticks, at: function (x) { return (Math.log(x) - l0) / (l1 - l0); } };
  }

  function categories(names) {
    var n = names.length;
    return {
      lo: -0.5, hi: n - 0.5, ticks: names.map(function (_, i) { return i; }),
      label: function (i) { return names[i]; },
      at: function (x) { return (x + 0.5) / n; }
    };
  }

  function tipOn(mark, text) {
    mark.setAttribute("data-tip", text);
    mark.setAttribute("class", "mark");
  }

  function xy(spec, box) {
    var shows = function (p) {
      return isFinite(p.x) && isFinite(p.y) && p.x !== null && p.y !== null &&
        (!spec.x_log || spec.x_categories.length > 0 || p.x > 0) && (!spec.y_log || p.y > 0);
    };
    var pts = [];
    spec.series.forEach(function (s) { s.points.forEach(function (p) { if (shows(p)) { pts.push(p); } }); });
    var ys = pts.map(function (p) { return p.y; }), xs = pts.map(function (p) { return p.x; });
    var ylo = Math.min.apply(null, ys), yhi = Math.max.apply(null, ys);
    if (spec.y_zero) { ylo = Math.min(ylo, 0); yhi = Math.max(yhi, 0); }
    var X, Y;
    if (spec.x_categories.length > 0) {
      X = categories(spec.x_categories);
    } else {
      var xlo = Math.min.apply(null, xs), xhi = Math.max.apply(null, xs);
      if (spec.refs.length > 0) {
        // y = x must be visible: both axes span both ranges.
        xlo = ylo = Math.min(xlo, ylo); xhi = yhi = Math.max(xhi, yhi);
      }
      X = spec.x_log ? logarithmic(xlo, xhi) : linear(xlo, xhi);
    }
    Y = spec.y_log ? logarithmic(ylo, yhi) : linear(ylo, yhi);
    var m = { l: 78, r: 16, t: 12, b: 52 };
    var w = WIDTH, pw = w - m.l - m.r;
    // Category names wider than their slot are set at a slant.
    var catLong = spec.x_categories.some(function (c) {
      return c.length * 7 > pw / spec.x_categories.length - 4;
    });
    if (catLong) { m.b = 110; }
    var h = 380, ph = h - m.t - m.b;
    var px = function (x) { return m.l + X.at(x) * pw; };
    var py = function (y) { return m.t + (1 - Y.at(y)) * ph; };
    var svg = node("svg", { viewBox: "0 0 " + w + " " + h, width: w, height: h, role: "img" }, box);
    var id = "clip" + box.getAttribute("data-chart");
    var clip = node("clipPath", { id: id }, node("defs", {}, svg));
    node("rect", { x: m.l, y: m.t, width: pw, height: ph }, clip);
    Y.ticks.forEach(function (t) {
      var y = py(t);
      node("line", { x1: m.l, x2: m.l + pw, y1: y, y2: y, "class": "grid" }, svg);
      node("text", { x: m.l - 6, y: y + 4, "text-anchor": "end" }, svg, fmt(t));
    });
    X.ticks.forEach(function (t) {
      var x = px(t);
      node("line", { x1: x, x2: x, y1: m.t, y2: m.t + ph, "class": "grid" }, svg);
      var label = X.label ? X.label(t) : fmt(t);
      if (catLong) {
        node("text", { x: x, y: m.t + ph + 14, "text-anchor": "end",
          transform: "rotate(-35 " + x + " " + (m.t + ph + 14) + ")" }, svg, label);
      } else {
        node("text", { x: x, y: m.t + ph + 18, "text-anchor": "middle" }, svg, label);
      }
    });
    node("rect", { x: m.l, y: m.t, width: pw, height: ph, fill: "none", "class": "axis" }, svg);
    node("text", { x: m.l + pw / 2, y: h - 8, "text-anchor": "middle" }, svg, spec.x_label);
    node("text", { x: 14, y: m.t + ph / 2, "text-anchor": "middle",
      transform: "rotate(-90 14 " + (m.t + ph / 2) + ")" }, svg, spec.y_label);
    var plot = node("g", { "clip-path": "url(#" + id + ")" }, svg);
    var legend = [];
    spec.refs.forEach(function (r) {
      node("line", { x1: px(X.lo), y1: py(X.lo * r.factor), x2: px(X.hi), y2: py(X.hi * r.factor),
        stroke: "#555", "stroke-width": r.dashed ? 1 : 1.5, "stroke-dasharray": r.dashed ? "5 4" : "none" }, plot);
      if (r.label) { legend.push({ label: r.label, line: r.dashed ? "dashed" : "solid" }); }
    });
    var marks = node("g", {}, svg);
    spec.series.forEach(function (s, i) {
      var c = colour(i);
      var shown = s.points.filter(shows);
      if (spec.lines && shown.length > 1) {
        node("polyline", { points: shown.map(function (p) { return px(p.x) + "," + py(p.y); }).join(" "),
          fill: "none", stroke: c, "stroke-width": 2 }, plot);
      }
      shown.forEach(function (p) {
        var dot = node("circle", { cx: px(p.x), cy: py(p.y), r: 5, fill: c, stroke: "#fff", "stroke-width": 1 }, marks);
        tipOn(dot, s.name + "\n" + p.tip);
      });
      legend.push({ label: s.name, colour: c });
    });
    return legend;
  }

  function bars(spec, box) {
    var rows = spec.bars.length, rowH = 24;
    var longest = Math.max.apply(null, spec.bars.map(function (b) { return b.label.length; }));
    var m = { l: Math.min(20 + longest * 7, 340), r: 24, t: 8, b: 44 };
    var w = WIDTH, h = m.t + m.b + rows * rowH, pw = w - m.l - m.r;
    var total = function (b) {
      return b.values.reduce(function (a, v) { return a + (isFinite(v) && v > 0 ? v : 0); }, 0);
    };
    var X = linear(0, Math.max.apply(null, spec.bars.map(total)));
    var px = function (x) { return m.l + X.at(x) * pw; };
    var svg = node("svg", { viewBox: "0 0 " + w + " " + h, width: w, height: h, role: "img" }, box);
    X.ticks.forEach(function (t) {
      node("line", { x1: px(t), x2: px(t), y1: m.t, y2: m.t + rows * rowH, "class": "grid" }, svg);
      node("text", { x: px(t), y: m.t + rows * rowH + 16, "text-anchor": "middle" }, svg, fmt(t));
    });
    node("text", { x: m.l + pw / 2, y: h - 6, "text-anchor": "middle" }, svg, spec.x_label);
    var marks = node("g", {}, svg);
    spec.bars.forEach(function (b, r) {
      var y = m.t + r * rowH;
      node("text", { x: m.l - 6, y: y + rowH / 2 + 4, "text-anchor": "end" }, svg, b.label);
      var g = node("g", {}, marks), at = 0, drawn = false;
      b.values.forEach(function (v, i) {
        if (!(isFinite(v) && v > 0)) { return; }
        var seg = node("rect", { x: px(at), y: y + 3, width: Math.max(px(at + v) - px(at), 0.5), height: rowH - 6,
          fill: colour(i) }, g);
        seg.setAttribute("data-tip", b.label + "\n" + spec.segments[i] + ": " + fmt(v) + "\n" + b.tip);
        at += v; drawn = true;
      });
      if (drawn) { g.setAttribute("class", "mark"); }
    });
    node("line", { x1: m.l, x2: m.l, y1: m.t, y2: m.t + rows * rowH, "class": "axis" }, svg);
    return spec.segments.map(function (s, i) { return { label: s, colour: colour(i) }; })
      .filter(function (_, i) { return spec.bars.some(function (b) { return b.values[i] > 0; }); });
  }

  function drawLegend(items, box) {
    var div = document.createElement("div");
    div.className = "legend";
    items.forEach(function (it) {
      var span = document.createElement("span");
      var key = document.createElement("span");
      key.className = "key";
      if (it.colour) {
        key.style.background = it.colour;
      } else {
        key.style.borderTop = "2px " + it.line + " #555";
        key.style.height = "0";
      }
      span.appendChild(key);
      span.appendChild(document.createTextNode(it.label));
      div.appendChild(span);
    });
    box.appendChild(div);
  }

  // Hovering a mark shows what it carries beside the pointer.
  function hover() {
    var tip = document.getElementById("simsort-tip");
    document.addEventListener("mousemove", function (e) {
      var t = e.target && e.target.closest ? e.target.closest("[data-tip]") : null;
      if (!t) { tip.hidden = true; return; }
      tip.textContent = t.getAttribute("data-tip");
      tip.hidden = false;
      var x = e.clientX + 14, y = e.clientY + 14;
      if (x + tip.offsetWidth > window.innerWidth) { x = Math.max(0, e.clientX - tip.offsetWidth - 14); }
      if (y + tip.offsetHeight > window.innerHeight) { y = Math.max(0, e.clientY - tip.offsetHeight - 14); }
      tip.style.left = x + "px";
      tip.style.top = y + "px";
    });
  }

  var check = document.getElementById("simsort-check");
  var problems = [];
  var boxes = document.querySelectorAll("[data-chart]");
  var drawn = 0;
  try {
    var specs = JSON.parse(document.getElementById("simsort-charts").textContent);
    Array.prototype.forEach.call(boxes, function (box) {
      var i = Number(box.getAttribute("data-chart"));
      var want = Number(box.getAttribute("data-marks"));
      try {
        var spec = specs[i];
        var legend = spec.kind === "xy" ? xy(spec, box) : bars(spec, box);
        drawLegend(legend, box);
        var got = box.querySelectorAll(".mark").length;
        if (got === want && got > 0) {
          drawn += 1;
        } else {
          problems.push("chart " + i + " (" + spec.title + ") drew " + got + " of " + want + " marks");
        }
      } catch (e) {
        problems.push("chart " + i + ": " + e);
      }
    });
    hover();
    // Hover the first mark of every chart as a reader would: the tip must
    // show the mark's configuration and counters.
    Array.prototype.forEach.call(boxes, function (box) {
      var mark = box.querySelector("[data-tip]");
      if (!mark) { return; }
      var r = mark.getBoundingClientRect();
      mark.dispatchEvent(new MouseEvent("mousemove", { bubbles: true, clientX: r.left + 1, clientY: r.top + 1 }));
      var tip = document.getElementById("simsort-tip");
      if (tip.hidden || tip.textContent !== mark.getAttribute("data-tip")) {
        problems.push("chart " + box.getAttribute("data-chart") + ": hovering a mark shows no tip");
      }
      tip.hidden = true;
    });
  } catch (e) {
    problems.push(String(e));
  }
  problems = problems.concat(window.simsortErrors || []);
  check.setAttribute("data-drawn", String(drawn));
  check.setAttribute("data-status", problems.length === 0 && drawn === boxes.length ? "ok" : "failed");
  check.textContent = drawn + " of " + boxes.length + " charts drawn" +
    (problems.length ? "; problems: " + problems.join("; ") : "") + ".";
}());
