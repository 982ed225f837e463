// Unit tests of the dashboard's logic (Sources/NetsimAdmin/Dashboard/dashboard-logic.js), with
// no page: `node --test Tests/Dashboard` (scripts/js-test.sh runs them).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const logic = require("../../Sources/NetsimAdmin/Dashboard/dashboard-logic.js");

test("seconds: tenths under a minute, then minutes and whole seconds", () => {
  assert.equal(logic.seconds(0), "0.0 s");
  assert.equal(logic.seconds(59.94), "59.9 s");
  assert.equal(logic.seconds(61.2), "1 min 1 s");
  assert.equal(logic.seconds(3600), "60 min 0 s");
  // 119.6 s rounds up to the next minute, never "1 min 60 s".
  assert.equal(logic.seconds(119.6), "2 min 0 s");
});

test("bytes: B under a KiB, KiB to one place, MiB to two", () => {
  assert.equal(logic.bytes(0), "0 B");
  assert.equal(logic.bytes(1023), "1023 B");
  assert.equal(logic.bytes(1024), "1.0 KiB");
  assert.equal(logic.bytes(1536), "1.5 KiB");
  assert.equal(logic.bytes(1048576), "1.00 MiB");
  assert.equal(logic.bytes(5 * 1048576 + 524288), "5.50 MiB");
});

test("rate: unlimited, kbit/s, then Mbit/s from 1,000,000 bit/s", () => {
  assert.equal(logic.rate(null), "unlimited");
  assert.equal(logic.rate(undefined), "unlimited");
  assert.equal(logic.rate(0), "0 kbit/s");
  assert.equal(logic.rate(999999), "1000 kbit/s");
  assert.equal(logic.rate(1e6), "1.00 Mbit/s");
  assert.equal(logic.rate(12.345e6), "12.35 Mbit/s");
});

test("pathForPhone names the phone only when there are several", () => {
  assert.equal(logic.pathForPhone("/status", 1, 1), "/status");
  assert.equal(logic.pathForPhone("/status", 2, 3), "/status?phone=2");
  assert.equal(logic.pathForPhone("/outage?duration=10s", 3, 3), "/outage?duration=10s&phone=3");
});

test("splitEvents keeps an unfinished event for the next read", () => {
  assert.deepEqual(logic.splitEvents(""), { blocks: [], rest: "" });
  assert.deepEqual(logic.splitEvents("event: a\ndata: 1\n\nevent: b\nda"), { blocks: ["event: a\ndata: 1"], rest: "event: b\nda" });
  assert.deepEqual(logic.splitEvents("data: 1\n\ndata: 2\n\n"), { blocks: ["data: 1", "data: 2"], rest: "" });
});

test("parseEvent reads the name and the JSON, and drops what it cannot read", () => {
  assert.deepEqual(logic.parseEvent('event: radio-state\ndata: {"state":"IDLE","previous":"LONG_DRX","at":12.5}'),
    { name: "radio-state", data: { state: "IDLE", previous: "LONG_DRX", at: 12.5 } });
  // Data on several lines is one JSON text; an event with no name is a "message".
  assert.deepEqual(logic.parseEvent('data: {"count":\ndata: 3}'), { name: "message", data: { count: 3 } });
  assert.equal(logic.parseEvent("event: outage"), null, "no data");
  assert.equal(logic.parseEvent("event: outage\ndata: {not json"), null);
  assert.equal(logic.parseEvent(": a comment\n"), null);
  // A destination a peer chose stays a string: the page sets it as text, never as markup.
  const event = logic.parseEvent('event: radio-woken\ndata: {"destination":"<img src=x onerror=alert(1)>"}');
  assert.equal(event.data.destination, "<img src=x onerror=alert(1)>");
});

test("startSegment closes the open segment and ignores a change before the last one", () => {
  const segments = [];
  logic.startSegment("IDLE", 0, segments);
  logic.startSegment("PROMOTION", 5, segments);
  assert.deepEqual(segments, [{ state: "IDLE", start: 0, end: 5 }, { state: "PROMOTION", start: 5, end: null }]);
  logic.startSegment("LONG_DRX", 4, segments);
  assert.equal(segments.length, 2, "already in the past the report gave");
});

test("addWake adds a wake-up once and renames it when /status names it later", () => {
  const wakes = [];
  logic.addWake(wakes, { at: 1, connection: 7, destination: "10.0.0.1:443", cause: "handshake" });
  logic.addWake(wakes, { at: 1, connection: 7, destination: "api.example:443" });
  logic.addWake(wakes, { at: 2, connection: 7, destination: "api.example:443" });
  assert.deepEqual(wakes, [
    { at: 1, connection: 7, destination: "api.example:443" },
    { at: 2, connection: 7, destination: "api.example:443" },
  ]);
});

test("wakeCause says what woke the radio, and passes an unknown cause through", () => {
  assert.equal(logic.wakeCause({ cause: "handshake" }), "a SYN");
  assert.equal(logic.wakeCause({ cause: "data", direction: "down" }), "data down");
  assert.equal(logic.wakeCause({ cause: "close", direction: "up" }), "a FIN up");
  assert.equal(logic.wakeCause({ cause: "paging" }), "paging");
});

test("curlLine quotes the body and the URL as single shell words and never shows the token", () => {
  assert.equal(logic.curlLine({ path: "/outage?duration=10s" }, false, "http://127.0.0.1:8474"),
    "curl -X POST 'http://127.0.0.1:8474/outage?duration=10s'");
  assert.equal(logic.curlLine({ path: "/set", body: `{"note": "it's"}` }, true, "http://h"),
    `curl -X POST -H 'Authorization: Bearer $NETSIM_ADMIN_TOKEN' --data-binary '{"note": "it'\\''s"}' 'http://h/set'`);
  assert.equal(logic.shellQuote("a'b"), "'a'\\''b'");
});
