// The dashboard's logic that needs no page: figures as text, the event stream's framing, the
// radio's segments and wake-ups, and the curl line a control shows. The server sends this file
// and dashboard.js (the page's wiring) as one script, so these are plain top-level functions;
// node loads this file alone (`module.exports` below) for Tests/Dashboard's unit tests.

// Emulated seconds as the page shows them: tenths under a minute, then whole seconds.
function seconds(s) {
  if (s < 60) return s.toFixed(1) + " s";
  const whole = Math.round(s);
  return Math.floor(whole / 60) + " min " + (whole % 60) + " s";
}

const bytes = (n) => n < 1024 ? n + " B" : n < 1048576 ? (n / 1024).toFixed(1) + " KiB" : (n / 1048576).toFixed(2) + " MiB";
const rate = (bps) => bps == null ? "unlimited" : bps >= 1e6 ? (bps / 1e6).toFixed(2) + " Mbit/s" : (bps / 1e3).toFixed(0) + " kbit/s";

// `path` for phone `phone` of `phoneCount`: with several phones, every call names it.
function pathForPhone(path, phone, phoneCount) {
  if (phoneCount < 2) return path;
  return path + (path.includes("?") ? "&" : "?") + "phone=" + phone;
}

// The stream read so far split at its blank lines: the whole events, and the rest to keep.
function splitEvents(buffer) {
  const blocks = [];
  let end;
  while ((end = buffer.indexOf("\n\n")) >= 0) {
    blocks.push(buffer.slice(0, end));
    buffer = buffer.slice(end + 2);
  }
  return { blocks: blocks, rest: buffer };
}

// One server-sent event (its `event:` and `data:` lines) as its name and its JSON; null for an
// event with no data or data that is not JSON (a line this page does not know).
function parseEvent(block) {
  let name = "message", data = "";
  for (const line of block.split("\n")) {
    if (line.startsWith("event: ")) name = line.slice(7);
    else if (line.startsWith("data: ")) data += line.slice(6);
  }
  if (!data) return null;
  try { return { name: name, data: JSON.parse(data) }; } catch (error) { return null; }
}

// The radio entered `state` at `at`: the open segment of `segments` ends there and a new one
// opens, unless `at` is already in the past the report gave.
function startSegment(state, at, segments) {
  const last = segments[segments.length - 1];
  if (last && at < last.start) return;
  if (last && last.end === null) last.end = at;
  segments.push({ state: state, start: at, end: null });
}

// A wake-up from the stream or from /status's recent ones (a page opened late, a stream that
// missed events), once in `wakes`. /status gives a wake-up the name its connection's first
// bytes settled on later.
function addWake(wakes, wake) {
  const known = wakes.find((known) => known.at === wake.at && known.connection === wake.connection);
  if (known) known.destination = wake.destination;
  else wakes.push({ at: wake.at, connection: wake.connection, destination: wake.destination });
}

// What a `radio-woken` event says woke the radio, in words.
function wakeCause(data) {
  const causes = { handshake: "a SYN", lookup: "a name lookup", data: "data " + data.direction, close: "a FIN " + data.direction, datagram: "a datagram " + data.direction };
  return causes[data.cause] || data.cause;
}

// `text` as one shell word: in single quotes, each of its own quotes closed, escaped and reopened.
function shellQuote(text) {
  return "'" + text.replace(/'/g, "'\\''") + "'";
}

// The curl command of a control's POST `call` ({path, body?}) to the API at `origin`; with a
// token, it names the variable that holds it, never the token.
function curlLine(call, withToken, origin) {
  const auth = withToken ? " -H 'Authorization: Bearer $NETSIM_ADMIN_TOKEN'" : "";
  const body = call.body !== undefined ? " --data-binary " + shellQuote(call.body) : "";
  return "curl -X POST" + auth + body + " " + shellQuote(origin + call.path);
}

if (typeof module === "object" && module.exports) {
  module.exports = { seconds, bytes, rate, pathForPhone, splitEvents, parseEvent, startSegment, addWake, wakeCause, shellQuote, curlLine };
}
