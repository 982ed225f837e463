const WINDOW = 120;          // seconds the strip shows
const KEEP = 600;            // seconds of history kept
const LOG_LIMIT = 200;
const SVG = "http://www.w3.org/2000/svg";
const page = {
  token: sessionStorage.getItem("netsim-admin-token"),
  segments: [],              // {state, start, end|null}
  marks: [],                 // {at, kind, label}
  gaps: [],                  // {start, end|null}
  wakes: [],                 // {at, connection, destination}
  status: null, statusTime: 0, previous: null, ended: false, legendKey: null,
  phone: 1, phoneCount: 1,   // the phone watched and driven, of how many
  phoneSegments: {},         // phone -> [{state, start, end|null}], for the overview strips
  phoneGaps: {},             // phone -> [{start, end|null}]: its outages and handover gaps
  phoneStates: [],           // /phones: each phone's state now
};

// `path` for the phone watched.
const forPhone = (path) => pathForPhone(path, page.phone, page.phoneCount);

const $ = (id) => document.getElementById(id);

function headers(extra) {
  const h = Object.assign({}, extra);
  if (page.token) h["Authorization"] = "Bearer " + page.token;
  return h;
}

async function api(path, options) {
  const response = await fetch(path, Object.assign({}, options, { headers: headers(options && options.headers) }));
  if (response.status === 401) $("token-form").hidden = false;
  return response;
}

// The emulated clock now: the last status's time, moved on by the wall clock since.
function now() {
  if (!page.status) return 0;
  const since = page.ended ? 0 : Math.min((performance.now() - page.statusTime) / 1000, 2);
  return page.status.elapsedSeconds + since;
}

// MARK: The event stream

function logLine(text) {
  const item = document.createElement("li");
  item.textContent = text;
  const log = $("log");
  log.insertBefore(item, log.firstChild);
  while (log.children.length > LOG_LIMIT) log.removeChild(log.lastChild);
}

function onEvent(name, data) {
  const at = typeof data.at === "number" ? data.at : now();
  switch (name) {
    case "radio-state":
      startSegment(data.state, at, page.segments);
      logLine(seconds(at) + "  radio " + data.previous + " → " + data.state);
      break;
    case "radio-woken": {
      addWake(page.wakes, data);
      logLine(seconds(at) + "  radio woken by " + wakeCause(data) + " for " + data.destination + (data.connection != null ? " (connection " + data.connection + ")" : ""));
      break;
    }
    case "outage":
      page.marks.push({ at: at, kind: "outage", label: "outage " + (data.mode || "") });
      page.gaps.push({ start: at, end: null });
      logLine(seconds(at) + "  outage, " + data.mode + ", " + seconds(data.durationSeconds || 0) + ", " + (data.affectedConnections || 0) + " connection(s)");
      break;
    case "handover":
      page.marks.push({ at: at, kind: "handover", label: "→ " + data.network });
      if (data.durationSeconds) page.gaps.push({ start: at, end: null });
      logLine(seconds(at) + "  moved to " + data.network + " (" + data.mode + ")");
      break;
    case "set":
      page.marks.push({ at: at, kind: "set", label: data.undoes != null ? "undo" : "set" });
      logLine(seconds(at) + "  set" + (data.undoes != null ? " (undoes " + seconds(data.undoes) + ")" : "") + ": up " + (data.link ? data.link.up.summary : "") + "; down " + (data.link ? data.link.down.summary : ""));
      break;
    case "signal":
      page.marks.push({ at: at, kind: "set", label: data.rsrp + " dBm" });
      logLine(seconds(at) + "  signal " + data.rsrp + " dBm on " + data.network);
      break;
    case "nat-expiry":
      page.marks.push({ at: data.expiredAt || at, kind: "nat-expiry", label: "NAT" });
      logLine(seconds(at) + "  NAT mapping gone (since " + seconds(data.expiredAt || at) + ")");
      break;
    case "outage-ended":
      for (const gap of page.gaps) if (gap.end === null) gap.end = at;
      logLine(seconds(at) + "  connectivity back (since " + seconds(data.startedAt) + ")");
      break;
    case "connection-opened":
      logLine(seconds(at) + "  connection " + data.connection + " opened");
      break;
    case "connection-closed":
      logLine(seconds(at) + "  connection " + data.connection + (data.finished ? " closed" : " ended without a clean close"));
      break;
    case "timeline-paused":
      page.marks.push({ at: at, kind: "pause", label: "timeline paused" });
      logLine(seconds(at) + "  the profile's timeline paused");
      break;
    case "timeline-resumed":
      page.marks.push({ at: at, kind: "pause", label: "resumed" });
      logLine(seconds(at) + "  the profile's timeline resumed after " + seconds(data.pausedSeconds));
      break;
    case "dropped":
      logLine("(" + data.count + " events missed: this page fell behind)");
      break;
  }
}

// Of several phones' events, each radio change goes to its phone's overview strip and
// the watched phone's events to the rest of the page.
function dispatch(block) {
  const event = parseEvent(block);
  if (!event) return;
  const name = event.name, parsed = event.data;
  if (typeof parsed.phone === "number") {
    if (name === "radio-state") startSegment(parsed.state, parsed.at, page.phoneSegments[parsed.phone] = page.phoneSegments[parsed.phone] || []);
    const gaps = page.phoneGaps[parsed.phone] = page.phoneGaps[parsed.phone] || [];
    if (name === "outage" || (name === "handover" && parsed.durationSeconds)) gaps.push({ start: parsed.at, end: null });
    if (name === "outage-ended") for (const gap of gaps) if (gap.end === null) gap.end = parsed.at;
    if (parsed.phone !== page.phone) return;
  }
  onEvent(name, parsed);
}

// Server-sent events read with fetch, so that a token can go in a header.
async function follow(onOpen) {
  for (;;) {
    try {
      const response = await api("/events");
      if (!response.ok) throw new Error("events: " + response.status);
      setFeed("live", "live");
      if (onOpen) { onOpen(); onOpen = null; }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        const split = splitEvents(buffer);
        split.blocks.forEach(dispatch);
        buffer = split.rest;
      }
    } catch (error) { /* retried below */ }
    setFeed(page.ended ? "the run has ended" : "reconnecting…", "down");
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

function setFeed(text, kind) {
  const feed = $("feed");
  feed.textContent = text;
  feed.className = "feed " + kind;
}

// MARK: The report's past, once

async function loadPast() {
  try {
    const response = await api(forPhone("/report"));
    if (!response.ok) return;
    const report = await response.json();
    $("profile").textContent = report.profile + (report.seed != null ? " (seed " + report.seed + ")" : "");
    const past = report.radio && report.radio.timeline ? report.radio.timeline : [];
    const from = (report.durationSeconds || 0) - KEEP;
    const earlier = past.filter((segment) => segment.end >= from).map((segment) => ({ state: segment.state, start: segment.start, end: segment.end }));
    if (earlier.length) earlier[earlier.length - 1].end = null;
    const later = page.segments.filter((segment) => !earlier.length || segment.start > earlier[earlier.length - 1].start);
    if (earlier.length && later.length) earlier[earlier.length - 1].end = later[0].start;
    page.segments = earlier.concat(later);
    for (const event of report.events || []) {
      if (event.at < from) continue;
      const label = event.kind === "handover" ? "→ " + event.network : event.kind === "nat-expiry" ? "NAT" : event.kind;
      page.marks.push({ at: event.kind === "nat-expiry" ? (event.expiredAt || event.at) : event.at, kind: event.kind, label: label });
      if (event.kind === "outage") page.gaps.push({ start: event.at, end: event.at + (event.durationSeconds || 0) });
    }
  } catch (error) { /* the strip starts from now */ }
}

// MARK: Status

async function poll() {
  try {
    const response = await api(forPhone("/status"));
    if (!response.ok) throw new Error("status: " + response.status);
    const status = await response.json();
    const previous = page.status;
    page.previous = previous;
    page.status = status;
    page.statusTime = performance.now();
    showStatus(status, previous);
  } catch (error) {
    if (page.status) { page.ended = true; setFeed("the run has ended", "down"); }
  }
}

function showStatus(status, previous) {
  $("radio-state").textContent = status.radioState;
  $("network").textContent = status.network;
  $("connectivity").textContent = status.disconnected ? "none (outage or handover gap)" : "yes";
  $("elapsed").textContent = seconds(status.elapsedSeconds);
  $("wake").textContent = seconds(status.wakeSeconds);
  $("energy").textContent = status.energyJoules.toFixed(2) + " J";
  $("promotions").textContent = String(status.promotions);
  $("bytes").textContent = bytes(status.bytes.up) + " / " + bytes(status.bytes.down);
  $("link-up").textContent = status.link.up.summary;
  $("link-down").textContent = status.link.down.summary;
  $("queued").textContent = bytes(status.queuedBytes.up) + " / " + bytes(status.queuedBytes.down);
  if (previous && status.elapsedSeconds > previous.elapsedSeconds) {
    const span = status.elapsedSeconds - previous.elapsedSeconds;
    const up = (status.bytes.up - previous.bytes.up) * 8 / span, down = (status.bytes.down - previous.bytes.down) * 8 / span;
    $("rates").textContent = rate(up) + " / " + rate(down);
  }
  const select = document.querySelector("#network-form select[name=to]");
  if (select.options.length !== status.networks.length) {
    select.replaceChildren(...status.networks.map((name) => { const option = document.createElement("option"); option.textContent = name; return option; }));
    select.form.dispatchEvent(new Event("change"));
  }
  $("timeline-state").textContent = { none: "none in this profile", playing: "playing", paused: "paused", over: "played to its end" }[status.timeline] || status.timeline;
  $("timeline-pause").disabled = status.timeline !== "playing";
  $("timeline-resume").disabled = status.timeline !== "paused";
  $("timeline-call").textContent = curl({ path: forPhone(status.timeline === "paused" ? "/timeline/resume" : "/timeline/pause") });
  const listed = status.connections.length < status.openConnections ? " (the oldest " + status.connections.length + " of " + status.openConnections + ")" : "";
  $("connection-count").textContent = status.openConnections + " open" + listed;
  // The proxy renames a wake-up once its connection's first bytes name it (Host, SNI).
  for (const wake of status.recentWakeUps) addWake(page.wakes, wake);
  const body = document.querySelector("#connections tbody");
  body.replaceChildren(...status.connections.map((connection) => {
    const row = document.createElement("tr");
    const cells = [String(connection.id), connection.destination, seconds(status.elapsedSeconds - connection.openedAt),
      bytes(connection.bytes.up), bytes(connection.bytes.down), bytes(connection.queuedBytes.up + connection.queuedBytes.down)];
    cells.forEach((text, index) => {
      const cell = document.createElement("td");
      cell.textContent = text;
      if (index >= 2) cell.className = "number";
      row.appendChild(cell);
    });
    return row;
  }));
}

// MARK: Several phones

// Each phone's state now; the first answer says how many phones there are.
async function pollPhones() {
  try {
    const response = await api("/phones");
    if (!response.ok) return;
    const phones = await response.json();
    page.phoneStates = phones;
    if (phones.length > 1 && page.phoneCount !== phones.length) {
      page.phoneCount = phones.length;
      $("phones-section").hidden = false;
      $("phone-select").replaceChildren(...phones.map((phone) => {
        const option = document.createElement("option");
        option.value = String(phone.phone);
        option.textContent = "phone " + phone.phone;
        return option;
      }));
      $("phone-select").value = String(page.phone);
      // The page so far showed phone 1, which it goes on watching.
      $("phone-name").textContent = "Phone " + page.phone + ": ";
      for (const form of document.querySelectorAll(".controls form")) form.dispatchEvent(new Event("change"));
    }
    // A phone whose radio has not changed since the page opened starts its strip now.
    for (const phone of phones) {
      const segments = page.phoneSegments[phone.phone] = page.phoneSegments[phone.phone] || [];
      if (!segments.length) segments.push({ state: phone.radioState, start: now(), end: null });
    }
  } catch (error) { /* the run has ended, or not yet begun */ }
}

// Watches and drives phone `phone` from now on: the rest of the page starts over with
// its past, its status and its events.
function watch(phone) {
  page.phone = phone;
  page.segments = []; page.marks = []; page.gaps = []; page.wakes = [];
  page.status = null; page.previous = null;
  $("log").replaceChildren();
  $("phone-name").textContent = "Phone " + phone + ": ";
  for (const form of document.querySelectorAll(".controls form")) form.dispatchEvent(new Event("change"));
  poll();
  loadPast();
}

// One row per phone (the first PHONE_ROWS), the watched one outlined; a row picks its phone.
const PHONE_ROWS = 100;
function drawPhones() {
  if (page.phoneCount < 2) return;
  const end = now(), start = end - WINDOW, width = 1000, label = 70, row = 16;
  const x = (t) => label + Math.max(0, Math.min(width - label, (t - start) / WINDOW * (width - label)));
  const rows = Math.min(page.phoneCount, PHONE_ROWS);
  const strips = $("phone-strips");
  strips.setAttribute("viewBox", "0 0 " + width + " " + (rows * row + 4));
  const defs = svg("defs", {});
  const pattern = svg("pattern", { id: "phone-hatch", patternUnits: "userSpaceOnUse", width: 6, height: 6, patternTransform: "rotate(45)" });
  pattern.appendChild(svg("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#000", "stroke-width": 2, "stroke-opacity": 0.45 }));
  defs.appendChild(pattern);
  const children = [defs];
  for (let phone = 1; phone <= rows; phone++) {
    const y = (phone - 1) * row + 2;
    const group = svg("g", { "class": "phone-row", "data-phone": String(phone) });
    group.appendChild(svg("text", { x: 0, y: y + 11, "font-size": 11, fill: phone === page.phone ? "#000" : "#555", "font-weight": phone === page.phone ? "bold" : "normal" }, "phone " + phone));
    let segments = page.phoneSegments[phone] || [];
    for (const segment of segments) {
      const segmentEnd = segment.end === null ? end : segment.end;
      if (segmentEnd < start) continue;
      const rect = svg("rect", { x: x(segment.start), y: y, width: Math.max(0.5, x(segmentEnd) - x(segment.start)), height: row - 4, fill: STATE_COLORS[segment.state] || "#999", "data-state": segment.state });
      rect.appendChild(svg("title", {}, "phone " + phone + ": " + segment.state + " from " + seconds(segment.start)));
      group.appendChild(rect);
    }
    for (const gap of page.phoneGaps[phone] || []) {
      const gapEnd = gap.end === null ? end : gap.end;
      if (gapEnd < start) continue;
      group.appendChild(svg("rect", { x: x(gap.start), y: y, width: Math.max(1, x(gapEnd) - x(gap.start)), height: row - 4, fill: "url(#phone-hatch)", "class": "gap" }));
    }
    if (phone === page.phone) group.appendChild(svg("rect", { x: label, y: y - 1, width: width - label, height: row - 2, fill: "none", stroke: "#000" }));
    group.addEventListener("click", () => { $("phone-select").value = String(phone); watch(phone); });
    children.push(group);
    page.phoneSegments[phone] = segments.filter((segment) => segment.end === null || segment.end >= end - KEEP);
    page.phoneGaps[phone] = (page.phoneGaps[phone] || []).filter((gap) => gap.end === null || gap.end >= end - KEEP);
  }
  strips.replaceChildren(...children);
  strips.setAttribute("data-phones", String(rows));
}

// MARK: The strip

function svg(name, attributes, text) {
  const element = document.createElementNS(SVG, name);
  for (const key in attributes) element.setAttribute(key, attributes[key]);
  if (text !== undefined) element.textContent = text;
  return element;
}

// A label's place beside a mark at `at`: to its right, or to its left near the strip's end.
function beside(at, gap) {
  return at > 800 ? { x: at - gap, "text-anchor": "end" } : { x: at + gap };
}

function draw() {
  const strip = $("strip");
  const end = now(), start = end - WINDOW;
  const width = 1000, top = 62, height = 60;
  const x = (t) => Math.max(0, Math.min(width, (t - start) / WINDOW * width));
  const children = [];
  const defs = svg("defs", {});
  const pattern = svg("pattern", { id: "hatch", patternUnits: "userSpaceOnUse", width: 6, height: 6, patternTransform: "rotate(45)" });
  pattern.appendChild(svg("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#000", "stroke-width": 2, "stroke-opacity": 0.45 }));
  defs.appendChild(pattern);
  children.push(defs);
  for (const segment of page.segments) {
    const segmentEnd = segment.end === null ? end : segment.end;
    if (segmentEnd < start) continue;
    const rect = svg("rect", { x: x(segment.start), y: top, width: Math.max(0.5, x(segmentEnd) - x(segment.start)), height: height, fill: STATE_COLORS[segment.state] || "#999" });
    rect.appendChild(svg("title", {}, segment.state + " from " + seconds(segment.start)));
    rect.setAttribute("data-state", segment.state);
    children.push(rect);
  }
  for (const gap of page.gaps) {
    const gapEnd = gap.end === null ? end : gap.end;
    if (gapEnd < start) continue;
    children.push(svg("rect", { x: x(gap.start), y: top, width: Math.max(1, x(gapEnd) - x(gap.start)), height: height, fill: "url(#hatch)", "class": "gap" }));
  }
  let lane = 0;
  for (const mark of page.marks) {
    if (mark.at < start || mark.at > end) continue;
    const color = EVENT_COLORS[mark.kind] || "#333";
    children.push(svg("line", { x1: x(mark.at), y1: 14, x2: x(mark.at), y2: top + height, stroke: color, "stroke-width": 1.5, "stroke-dasharray": mark.kind === "set" ? "" : "4 3", "class": "mark", "data-kind": mark.kind }));
    children.push(svg("text", Object.assign({ y: 12 + 11 * (lane++ % 2), "font-size": 11, fill: color }, beside(x(mark.at), 3)), mark.label));
  }
  // Wake-up labels take the lower of two rows where they do not overlap the row's last
  // label (about 6 units a character at this size), else the upper one.
  const rowEnds = [-Infinity, -Infinity];
  for (const wake of page.wakes) {
    if (wake.at < start || wake.at > end) continue;
    const wx = x(wake.at);
    children.push(svg("path", { d: "M" + (wx - 5) + " " + (top - 12) + " L" + (wx + 5) + " " + (top - 12) + " L" + wx + " " + (top - 2) + " Z", fill: "#7b3294", "class": "wake" }));
    const full = wake.destination;
    const name = full.length > 32 ? full.slice(0, 31) + "…" : full;
    const place = beside(wx, 6), width = name.length * 6;
    const left = place["text-anchor"] === "end" ? place.x - width : place.x;
    const row = left > rowEnds[0] ? 0 : 1;
    rowEnds[row] = Math.max(rowEnds[row], left + width);
    children.push(svg("text", Object.assign({ y: top - 16 - 11 * row, "font-size": 10, fill: "#4a1d5a", "class": "wake-label" }, place), name));
  }
  const step = WINDOW <= 120 ? 20 : 60;
  for (let tick = Math.ceil(start / step) * step; tick <= end; tick += step) {
    if (tick < 0) continue;
    children.push(svg("line", { x1: x(tick), y1: top + height, x2: x(tick), y2: top + height + 5, stroke: "#666" }));
    children.push(svg("text", { x: x(tick), y: top + height + 18, "font-size": 11, "text-anchor": "middle", fill: "#444" }, tick + " s"));
  }
  strip.replaceChildren(...children);
  legend();
  strip.setAttribute("data-now", end.toFixed(2));
  strip.setAttribute("data-segments", String(page.segments.length));
  // History older than KEEP goes; the strip's memory stays bounded on a day-long run.
  const from = end - KEEP;
  page.segments = page.segments.filter((segment) => segment.end === null || segment.end >= from);
  page.marks = page.marks.filter((mark) => mark.at >= from);
  page.gaps = page.gaps.filter((gap) => gap.end === null || gap.end >= from);
  page.wakes = page.wakes.filter((wake) => wake.at >= from);
}

// The states the strip has shown, in the reports' order (all of them before the first).
function legend() {
  const seen = new Set(page.segments.map((segment) => segment.state));
  const states = Object.keys(STATE_COLORS).filter((state) => seen.size === 0 || seen.has(state));
  const key = states.join(" ");
  if (key === page.legendKey) return;
  page.legendKey = key;
  $("legend").replaceChildren(...states.map((state) => {
    const item = document.createElement("span");
    item.textContent = state;
    item.style.setProperty("--swatch", STATE_COLORS[state]);
    return item;
  }), (() => { const item = document.createElement("span"); item.textContent = "▼ woken by (destination)"; item.style.setProperty("--swatch", "transparent"); return item; })());
}

// MARK: Controls

function request(form) {
  const path = form.dataset.path;
  if (path === "/set") return { path: forPhone(path), body: form.elements.body.value };
  const query = new URLSearchParams();
  for (const element of form.elements) if (element.name) query.set(element.name, element.value);
  return { path: forPhone(path + "?" + query.toString()) };
}

const curl = (call) => curlLine(call, Boolean(page.token), location.origin);

async function post(call) {
  const answer = $("answer");
  try {
    const response = await api(call.path, { method: "POST", body: call.body });
    answer.textContent = response.status + " " + (await response.text());
    answer.className = "answer" + (response.ok ? "" : " error");
  } catch (error) {
    answer.textContent = String(error);
    answer.className = "answer error";
  }
  poll();
}

function wire(form) {
  const show = () => { form.querySelector(".call").textContent = curl(request(form)); };
  form.addEventListener("input", show);
  form.addEventListener("change", show);
  form.addEventListener("submit", (event) => { event.preventDefault(); post(request(form)); });
  show();
}

async function download(format) {
  const response = await api(forPhone(format === "html" ? "/report?format=html" : "/report"));
  if (!response.ok) return;
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = "netsim-run" + (page.phoneCount > 1 ? ".phone-" + page.phone : "") + "." + format;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

document.addEventListener("DOMContentLoaded", () => {
  $("window-seconds").textContent = String(WINDOW);
  legend();
  for (const form of document.querySelectorAll(".controls form")) wire(form);
  $("undo").addEventListener("click", () => post({ path: forPhone("/set/undo") }));
  $("end-outage").addEventListener("click", () => post({ path: forPhone("/outage/end") }));
  $("timeline-pause").addEventListener("click", () => post({ path: forPhone("/timeline/pause") }));
  $("timeline-resume").addEventListener("click", () => post({ path: forPhone("/timeline/resume") }));
  $("phone-select").addEventListener("change", (event) => watch(Number(event.target.value)));
  $("download-json").addEventListener("click", () => download("json"));
  $("download-html").addEventListener("click", () => download("html"));
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    page.token = event.target.elements.token.value;
    sessionStorage.setItem("netsim-admin-token", page.token);
    $("token-form").hidden = true;
    for (const form of document.querySelectorAll(".controls form")) form.dispatchEvent(new Event("change"));
    poll();
  });
  poll();
  pollPhones();
  follow(loadPast);
  setInterval(poll, 1000);
  setInterval(pollPhones, 1000);
  setInterval(draw, 250);
  setInterval(drawPhones, 250);
});
