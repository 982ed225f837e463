import NetsimCore
import NetsimReport

/// The live dashboard the admin API serves at `/`: one page, its script and its style sheet,
/// written by hand, with nothing fetched from elsewhere (it works offline and passes a
/// Content-Security-Policy that allows only the admin API itself).
///
/// It reads what any client of the API reads (`GET /status` each second, the `GET /events`
/// stream, `GET /report` once to draw the radio's past) and its controls make the POSTs the
/// API documents, each showing the request it makes. Text a peer chose (a destination's name)
/// only ever reaches the page as text nodes, never as markup.
enum DashboardPage {
    /// The policy every admin answer carries: the page may load only its own script and style
    /// sheet and talk only to the API it came from; nothing may frame it.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>netsim: the phone, live</title>
        <link rel="stylesheet" href="/dashboard.css">
        <script src="/dashboard.js" defer></script>
        </head>
        <body>
        <header>
          <h1>netsim <span id="profile"></span></h1>
          <span id="feed" class="feed">connecting…</span>
        </header>

        <section id="phones-section" hidden>
          <h2>Phones <span class="hint">each phone's radio, the last 120 s; pick one to watch and drive below</span></h2>
          <label>watching <select id="phone-select"></select></label>
          <svg id="phone-strips" viewBox="0 0 1000 40" role="img" aria-label="each phone's radio state over time"></svg>
        </section>

        <section>
          <h2><span id="phone-name"></span>Radio <span class="hint">the last <span id="window-seconds"></span> s, newest on the right</span></h2>
          <svg id="strip" viewBox="0 0 1000 170" role="img" aria-label="the radio's state over time, with outages, network moves, set steps and wake-ups"></svg>
          <div id="legend" class="legend"></div>
        </section>

        <section class="figures">
          <div><h3>Now</h3><dl>
            <dt>radio</dt><dd id="radio-state">–</dd>
            <dt>network</dt><dd id="network">–</dd>
            <dt>connectivity</dt><dd id="connectivity">–</dd>
            <dt>emulated time</dt><dd id="elapsed">–</dd>
          </dl></div>
          <div><h3>So far</h3><dl>
            <dt>radio awake</dt><dd id="wake">–</dd>
            <dt>energy</dt><dd id="energy">–</dd>
            <dt>promotions</dt><dd id="promotions">–</dd>
            <dt>bytes up / down</dt><dd id="bytes">–</dd>
          </dl></div>
          <div><h3>Link</h3><dl>
            <dt>up</dt><dd id="link-up">–</dd>
            <dt>down</dt><dd id="link-down">–</dd>
            <dt>throughput up / down</dt><dd id="rates">–</dd>
            <dt>queued up / down</dt><dd id="queued">–</dd>
          </dl></div>
        </section>

        <section>
          <h2>Open connections <span class="hint" id="connection-count"></span></h2>
          <table id="connections">
            <thead><tr><th>id</th><th>destination</th><th class="number">age</th><th class="number">bytes up</th><th class="number">bytes down</th><th class="number">queued</th></tr></thead>
            <tbody></tbody>
          </table>
        </section>

        <section class="controls">
          <h2>Drive the phone</h2>
          <form id="outage-form" data-path="/outage">
            <h3>Outage</h3>
            <label>duration <input name="duration" value="10s" size="6"></label>
            <label>mode <select name="mode"><option>stall</option><option>blackhole</option><option>reset</option></select></label>
            <button type="submit">Start outage</button>
            <button type="button" id="end-outage" title="POST /outage/end: what the outage held arrives as if it had been this long">End it now</button>
            <code class="call"></code>
          </form>
          <form id="network-form" data-path="/network">
            <h3>Move to another network</h3>
            <label>to <select name="to"></select></label>
            <label>mode <select name="mode"><option>keep</option><option>reset</option><option>blackhole</option></select></label>
            <label>gap <input name="gap" value="0s" size="6"></label>
            <button type="submit">Move</button>
            <code class="call"></code>
          </form>
          <form id="set-form" data-path="/set">
            <h3>Set step</h3>
            <textarea name="body" rows="3" cols="48">{"link": {"delay": "200ms"}}</textarea>
            <button type="submit">Set</button>
            <button type="button" id="undo">Undo the last set</button>
            <code class="call"></code>
          </form>
          <div class="timeline-control">
            <h3>The profile's timeline: <span id="timeline-state">–</span></h3>
            <button type="button" id="timeline-pause" title="POST /timeline/pause: scripted events and outages wait; one in force runs its course">Pause</button>
            <button type="button" id="timeline-resume" title="POST /timeline/resume: the script goes on, later by the time paused">Resume</button>
            <code class="call" id="timeline-call"></code>
          </div>
          <pre id="answer" class="answer"></pre>
        </section>

        <section>
          <h2>Report so far</h2>
          <button type="button" id="download-json">Download JSON</button>
          <button type="button" id="download-html">Download HTML</button>
        </section>

        <section>
          <h2>Events <span class="hint">newest first</span></h2>
          <ol id="log" reversed></ol>
        </section>

        <form id="token-form" class="token" hidden>
          <p>This admin API needs its token (<code>netsim run --admin-token</code>).</p>
          <label>token <input name="token" type="password" autocomplete="off"></label>
          <button type="submit">Use</button>
        </form>
        </body>
        </html>

        """#

    static let css = #"""
        body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 16px 24px; color: #222; max-width: 1100px; }
        header { display: flex; align-items: baseline; gap: 16px; }
        h1 { font-size: 20px; margin: 0 0 8px; } h2 { font-size: 16px; margin: 18px 0 6px; } h3 { font-size: 14px; margin: 0 0 4px; }
        .hint { font-size: 12px; color: #666; font-weight: normal; }
        .feed { font-size: 12px; padding: 2px 8px; border-radius: 8px; background: #eee; }
        .feed.live { background: #d9f0d3; } .feed.down { background: #fbd5d5; }
        #strip { width: 100%; height: auto; border: 1px solid #ddd; background: #fafafa; }
        #phone-strips { width: 100%; height: auto; border: 1px solid #ddd; background: #fafafa; }
        .phone-row { cursor: pointer; }
        .timeline-control { border: 1px solid #ddd; padding: 6px 8px; margin: 8px 0; }
        .timeline-control h3 { margin: 0 0 4px; }
        .legend { font-size: 12px; display: flex; flex-wrap: wrap; gap: 12px; margin-top: 4px; }
        .legend span::before { content: ""; display: inline-block; width: 10px; height: 10px; margin-right: 4px; background: var(--swatch); }
        .figures { display: grid; grid-template-columns: repeat(3, 1fr); gap: 16px; }
        dl { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; margin: 0; font-size: 13px; }
        dt { color: #555; } dd { margin: 0; font-variant-numeric: tabular-nums; }
        table { border-collapse: collapse; font-size: 13px; width: 100%; }
        th, td { text-align: left; padding: 2px 8px; border-bottom: 1px solid #eee; }
        td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
        .controls form { margin: 8px 0; padding: 8px; border: 1px solid #e4e4e4; border-radius: 4px; }
        .controls label { margin-right: 10px; font-size: 13px; }
        code.call { display: block; font-size: 12px; color: #555; margin-top: 4px; word-break: break-all; }
        .answer { font-size: 12px; background: #f4f4f4; padding: 6px; max-height: 160px; overflow: auto; }
        .answer.error { background: #fbd5d5; } .answer:empty { display: none; }
        #log { font-size: 12px; max-height: 240px; overflow: auto; font-family: ui-monospace, Menlo, monospace; }
        .token { position: fixed; top: 20px; right: 20px; background: #fff; border: 1px solid #999; padding: 12px; }

        """#

    /// The page's script, with the state and event colours every report uses; composed once.
    static let script: String = {
        let stateColors = RadioState.allCases.map { "\"\($0.rawValue)\": \"\($0.chartColor)\"" }.joined(separator: ", ")
        let eventColors = RadioTimelineChart.eventColors.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { "\"\($0.key.rawValue)\": \"\($0.value)\"" }.joined(separator: ", ")
        return "\"use strict\";\nconst STATE_COLORS = {\(stateColors)};\nconst EVENT_COLORS = {\(eventColors)};\n" + scriptBody
    }()

    private static let scriptBody = #"""
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

        // `path` for the phone watched: with several phones, every call names it.
        function forPhone(path) {
          if (page.phoneCount < 2) return path;
          return path + (path.includes("?") ? "&" : "?") + "phone=" + page.phone;
        }

        const $ = (id) => document.getElementById(id);
        const seconds = (s) => s < 60 ? s.toFixed(1) + " s" : Math.floor(s / 60) + " min " + (s % 60).toFixed(0) + " s";
        const bytes = (n) => n < 1024 ? n + " B" : n < 1048576 ? (n / 1024).toFixed(1) + " KiB" : (n / 1048576).toFixed(2) + " MiB";
        const rate = (bps) => bps == null ? "unlimited" : bps >= 1e6 ? (bps / 1e6).toFixed(2) + " Mbit/s" : (bps / 1e3).toFixed(0) + " kbit/s";

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

        function startSegment(state, at, segments) {
          segments = segments || page.segments;
          const last = segments[segments.length - 1];
          if (last && at < last.start) return;        // already in the past the report gave
          if (last && last.end === null) last.end = at;
          segments.push({ state: state, start: at, end: null });
        }

        function logLine(text) {
          const item = document.createElement("li");
          item.textContent = text;
          const log = $("log");
          log.insertBefore(item, log.firstChild);
          while (log.children.length > LOG_LIMIT) log.removeChild(log.lastChild);
        }

        // A wake-up from the stream or from /status's recent ones (a page opened late, a stream
        // that missed events), once.
        // /status gives a wake-up the name its connection's first bytes settled on later.
        function addWake(wake) {
          const known = page.wakes.find((known) => known.at === wake.at && known.connection === wake.connection);
          if (known) known.destination = wake.destination;
          else page.wakes.push({ at: wake.at, connection: wake.connection, destination: wake.destination });
        }

        function onEvent(name, data) {
          const at = typeof data.at === "number" ? data.at : now();
          switch (name) {
            case "radio-state":
              startSegment(data.state, at);
              logLine(seconds(at) + "  radio " + data.previous + " → " + data.state);
              break;
            case "radio-woken": {
              addWake(data);
              const what = { handshake: "a SYN", lookup: "a name lookup", data: "data " + data.direction, close: "a FIN " + data.direction, datagram: "a datagram " + data.direction }[data.cause] || data.cause;
              logLine(seconds(at) + "  radio woken by " + what + " for " + data.destination + (data.connection != null ? " (connection " + data.connection + ")" : ""));
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
          let name = "message", data = "";
          for (const line of block.split("\n")) {
            if (line.startsWith("event: ")) name = line.slice(7);
            else if (line.startsWith("data: ")) data += line.slice(6);
          }
          if (!data) return;
          let parsed;
          try { parsed = JSON.parse(data); } catch (error) { return; /* a line this page does not know */ }
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
                let end;
                while ((end = buffer.indexOf("\n\n")) >= 0) {
                  dispatch(buffer.slice(0, end));
                  buffer = buffer.slice(end + 2);
                }
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
          for (const wake of status.recentWakeUps) addWake(wake);
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

        function curl(call) {
          const auth = page.token ? " -H 'Authorization: Bearer $NETSIM_ADMIN_TOKEN'" : "";
          const body = call.body !== undefined ? " --data-binary '" + call.body.replace(/'/g, "'\\''") + "'" : "";
          return "curl -X POST" + auth + body + " '" + location.origin + call.path + "'";
        }

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

        """#
}
