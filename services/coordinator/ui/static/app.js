// Yardstick web UI: charts, live progress, the compare picker. No framework; htmx does the fragments.
(function () {
  "use strict";

  function css(name) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  }

  function palette(i) {
    const colors = ["#6366f1", "#f59e0b", "#10b981", "#ef4444", "#06b6d4", "#a855f7", "#84cc16", "#ec4899"];
    return colors[i % colors.length];
  }

  function baseOptions(extra) {
    const grid = css("--border"), text = css("--muted");
    return Object.assign({
      responsive: true, maintainAspectRatio: false, animation: false,
      plugins: { legend: { labels: { color: text } } },
      scales: {
        x: { ticks: { color: text }, grid: { color: grid } },
        y: { ticks: { color: text }, grid: { color: grid } },
      },
    }, extra || {});
  }

  function breakdownChart(canvas, data) {
    const options = baseOptions();
    options.scales.y.min = 0; options.scales.y.max = 1;
    options.scales.y.title = { display: true, text: "pass rate (95% Wilson interval)", color: css("--muted") };
    options.plugins.legend.display = false;
    options.plugins.tooltip = { callbacks: { afterLabel: (c) => "n = " + data.counts[c.dataIndex] } };
    return new Chart(canvas, {
      type: "barWithErrorBars",
      data: { labels: data.labels, datasets: [{ label: "pass rate", data: data.values, backgroundColor: css("--accent") + "99", borderColor: css("--accent"), borderWidth: 1, errorBarColor: css("--text"), errorBarWhiskerColor: css("--text") }] },
      options: options,
    });
  }

  function histogramChart(canvas, data) {
    const options = baseOptions();
    options.plugins.legend.display = false;
    options.scales.y.title = { display: true, text: "items", color: css("--muted") };
    options.scales.x.title = { display: true, text: "latency (bin start)", color: css("--muted") };
    return new Chart(canvas, {
      type: "bar",
      data: { labels: data.labels, datasets: [{ label: "items", data: data.counts, backgroundColor: css("--accent") + "99", borderColor: css("--accent"), borderWidth: 1, barPercentage: 1, categoryPercentage: 1 }] },
      options: options,
    });
  }

  function seriesChart(canvas, data) {
    // One line per model@prompt, with its 95% interval as a band.
    const datasets = [];
    data.series.forEach(function (s, i) {
      const color = palette(i);
      datasets.push({ label: s.label + " (95% upper)", data: s.high, borderWidth: 0, pointRadius: 0, fill: false, spanGaps: true, hidden: false });
      datasets.push({ label: s.label + " (95% lower)", data: s.low, borderWidth: 0, pointRadius: 0, fill: "-1", backgroundColor: color + "33", spanGaps: true });
      datasets.push({ label: s.label, data: s.mean, borderColor: color, backgroundColor: color, pointRadius: 2, tension: 0.2, spanGaps: true });
    });
    const options = baseOptions();
    options.plugins.legend.labels.filter = (item) => !/\(95% (upper|lower)\)$/.test(item.text);
    if (data.bounded) { options.scales.y.min = 0; options.scales.y.max = 1; }
    return new Chart(canvas, { type: "line", data: { labels: data.labels, datasets: datasets }, options: options });
  }

  const builders = { breakdown: breakdownChart, histogram: histogramChart, series: seriesChart };

  function drawCharts(root) {
    if (typeof Chart === "undefined") return;
    if (typeof ChartErrorBars !== "undefined" && !drawCharts.registered) {
      Chart.register(ChartErrorBars.BarWithErrorBarsController, ChartErrorBars.BarWithErrorBar);
      drawCharts.registered = true;
    }
    root.querySelectorAll("canvas[data-chart]").forEach(function (canvas) {
      if (canvas.dataset.drawn) return;
      const source = document.getElementById(canvas.dataset.chart);
      if (!source) return;
      const data = JSON.parse(source.textContent);
      const build = builders[data.kind];
      if (build) { build(canvas, data); canvas.dataset.drawn = "1"; }
    });
  }

  function liveProgress() {
    const box = document.querySelector("[data-events]");
    if (!box || typeof EventSource === "undefined") return;
    const bar = box.querySelector("[data-progress-bar]");
    const label = box.querySelector("[data-progress-label]");
    const source = new EventSource(box.dataset.events);
    let finished = false;
    function update(event) {
      const e = JSON.parse(event.data);
      const pct = e.total ? Math.round((100 * e.done) / e.total) : 100;
      if (bar) bar.style.width = pct + "%";
      let text = e.done.toLocaleString() + " / " + e.total.toLocaleString() + " done · " + e.errors.toLocaleString() + " errors";
      if (e.throttled) {
        text += " · throttled " + e.throttled.toLocaleString();
        if (e.target_concurrency) text += " · concurrency " + e.target_concurrency;
      }
      if (label) label.textContent = text;
      if (["completed", "failed", "cancelled"].indexOf(e.kind) >= 0) finished = true;
    }
    ["started", "progress", "completed", "failed", "cancelled"].forEach((k) => source.addEventListener(k, update));
    // The server ends the stream after the final event: then show the results. Any other break
    // is left to EventSource, which reconnects by itself.
    source.onerror = function () {
      if (!finished) return;
      source.close();
      window.location.reload();
    };
  }

  function comparePicker() {
    const button = document.querySelector("[data-compare-button]");
    if (!button) return;
    function picked() { return Array.from(document.querySelectorAll("input[data-pick]:checked")); }
    function refresh() {
      const n = picked().length;
      button.disabled = n !== 2;
      button.textContent = n === 2 ? "Compare selected" : "Tick two experiments to compare (" + n + "/2)";
    }
    document.addEventListener("change", function (e) { if (e.target.matches("input[data-pick]")) refresh(); });
    document.body.addEventListener("htmx:afterSwap", refresh);
    button.addEventListener("click", function () {
      const rows = picked().map((i) => ({ id: i.value, created: i.dataset.created }));
      if (rows.length !== 2) return;
      rows.sort((a, b) => (a.created < b.created ? -1 : 1));
      window.location.href = "/ui/compare?baseline=" + encodeURIComponent(rows[0].id) + "&candidate=" + encodeURIComponent(rows[1].id);
    });
    refresh();
  }

  // Filters leave empty fields out of the address, so a filtered page keeps a short, stable link.
  document.addEventListener("htmx:configRequest", function (e) {
    if (e.detail.verb !== "get") return;
    const params = e.detail.parameters;
    const keys = params instanceof FormData ? Array.from(params.keys()) : Object.keys(params);
    keys.forEach(function (k) {
      const v = params instanceof FormData ? params.get(k) : params[k];
      if (v === "" || v === null) { if (params instanceof FormData) params.delete(k); else delete params[k]; }
    });
  });

  // The review page: keys pick each rubric field's answer (the focused field first, then any field
  // with that key), a label is saved as soon as every required field is answered (Enter saves too),
  // then the next item opens; s skips, ← → go to the previous / next item.
  function reviewForm() {
    const form = document.querySelector("[data-review]");
    if (!form) return;
    const fields = Array.from(form.querySelectorAll(".rubric-field"));
    const status = form.querySelector("[data-status]");
    const hasText = fields.some((f) => f.dataset.kind === "text");
    let focus = 0;
    const setFocus = (i) => { focus = Math.max(0, Math.min(i, fields.length - 1)); fields.forEach((f, n) => f.classList.toggle("focused", n === focus)); };
    const pick = (field, button) => field.querySelectorAll(".choice").forEach((b) => b.classList.toggle("picked", b === button));
    const values = () => {
      const out = {};
      fields.forEach((f) => {
        if (f.dataset.kind === "text") { const t = f.querySelector("textarea").value.trim(); if (t) out[f.dataset.field] = t; return; }
        const picked = f.querySelector(".choice.picked");
        if (picked) out[f.dataset.field] = JSON.parse(picked.dataset.value);
      });
      return out;
    };
    const complete = (v) => fields.every((f) => !f.hasAttribute("data-required") || f.dataset.field in v);
    async function save() {
      const v = values();
      if (!complete(v)) { if (status) status.textContent = "Answer every required field first."; return; }
      if (!form.querySelector("[data-save]")) return;  // a key that may not label
      if (status) status.textContent = "Saving…";
      const csrf = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRF-Token"];
      const response = await fetch(form.dataset.labelUrl, {
        method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify({ values: v }),
      });
      const body = await response.text();  // read to the end: leaving with the body unread aborts the request
      if (response.ok) { if (status) status.textContent = "Saved."; window.location.href = response.headers.get("X-Next") || form.dataset.nextUrl; }
      else if (status) status.textContent = "Not saved: " + body.slice(0, 300);
    }
    const chosen = (field, button) => {
      pick(field, button);
      const next = fields.findIndex((f, n) => n > fields.indexOf(field) && !f.querySelector(".choice.picked"));
      setFocus(next === -1 ? fields.indexOf(field) : next);
      if (!hasText && complete(values())) save();
    };
    fields.forEach((f) => f.querySelectorAll(".choice").forEach((b) => b.addEventListener("click", () => chosen(f, b))));
    form.querySelector("[data-save]")?.addEventListener("click", save);
    document.addEventListener("keydown", (e) => {
      if (e.target.matches("textarea, input, select")) {
        if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) save();
        if (e.key === "Escape") e.target.blur();
        return;
      }
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === "Enter") { e.preventDefault(); save(); return; }
      if (e.key === "s" || e.key === "ArrowRight") { window.location.href = form.dataset.nextUrl; return; }
      if (e.key === "ArrowLeft" && form.dataset.prevUrl) { window.location.href = form.dataset.prevUrl; return; }
      const selector = `.choice[data-key="${CSS.escape(e.key)}"]`;
      const field = [fields[focus], ...fields].find((f) => f && f.querySelector(selector));
      if (field) { e.preventDefault(); chosen(field, field.querySelector(selector)); }
    });
    const firstOpen = fields.findIndex((f) => f.dataset.kind !== "text" && !f.querySelector(".choice.picked"));
    setFocus(firstOpen === -1 ? 0 : firstOpen);
  }

  // The project switcher submits as soon as a project is picked.
  document.addEventListener("change", function (e) {
    if (e.target.matches("select[data-submit-on-change]")) e.target.form.submit();
  });

  document.addEventListener("DOMContentLoaded", function () {
    drawCharts(document);
    liveProgress();
    comparePicker();
    reviewForm();
    document.body.addEventListener("htmx:afterSettle", (e) => drawCharts(e.target));
  });
})();
