// The dashboard's own checks, beyond `node --check` (no eslint offline): what keeps its
// Content-Security-Policy and its text handling true, and its script in step with its page.
//   - dashboard.html loads only /dashboard.js and /dashboard.css: no inline script, no inline
//     style (a `style` attribute or element), no `on...=` handler, no URL of another site.
//   - the scripts never write markup or run text as code (innerHTML, outerHTML,
//     insertAdjacentHTML, document.write, eval, new Function, a string to setTimeout) and never
//     set a `style` or `on...` attribute: text a peer chose reaches the page only as text.
//   - every element the script asks for by id ($("...")) is in the page.
// Usage: node scripts/lint-dashboard.js; prints each problem as FILE:LINE: WHAT, exits 1 if any.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const directory = path.join(__dirname, "..", "Sources", "NetsimAdmin", "Dashboard");
const problems = [];

function lines(file) {
  return fs.readFileSync(path.join(directory, file), "utf8").split("\n");
}

function forbid(file, rules) {
  lines(file).forEach((line, index) => {
    for (const [pattern, what] of rules) {
      if (pattern.test(line)) problems.push(file + ":" + (index + 1) + ": " + what);
    }
  });
}

forbid("dashboard.html", [
  [/<script(?![^>]*\ssrc=)/i, "an inline script (the policy allows only /dashboard.js)"],
  [/<script\b(?![^>]*src="\/dashboard\.js")/i, "a script other than /dashboard.js"],
  [/<style\b/i, "a <style> element (the policy allows only /dashboard.css)"],
  [/\sstyle\s*=/i, "an inline style attribute (the policy forbids it)"],
  [/\son[a-z]+\s*=/i, "an inline event handler (the policy forbids it)"],
  // The empty data: icon fetches nothing: it only stops the browser asking for /favicon.ico.
  [/<link\b(?![^>]*href="\/dashboard\.css")(?![^>]*rel="icon" href="data:,")/i, "a link other than /dashboard.css and the empty icon"],
  [/(https?:)?\/\/[a-z0-9.-]+\.[a-z]/i, "a URL of another site (the page fetches nothing from elsewhere)"],
]);

const scripts = ["dashboard-logic.js", "dashboard.js"];
for (const file of scripts) {
  forbid(file, [
    [/\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write/, "markup written from a string (use textContent)"],
    [/\beval\s*\(|\bnew\s+Function\b/, "text run as code"],
    [/set(Timeout|Interval)\s*\(\s*["'`]/, "a string run as code by a timer"],
    [/setAttribute\(\s*["'](style|on[a-z]+)["']/i, "a style or handler attribute set from the script (the policy forbids it)"],
  ]);
}

const html = lines("dashboard.html").join("\n");
const ids = new Set(Array.from(html.matchAll(/\sid="([^"]+)"/g), (match) => match[1]));
lines("dashboard.js").forEach((line, index) => {
  for (const match of line.matchAll(/\$\("([^"]+)"\)/g)) {
    if (!ids.has(match[1])) problems.push("dashboard.js:" + (index + 1) + ": $(\"" + match[1] + "\") but dashboard.html has no such id");
  }
});

for (const problem of problems) console.error(path.join("Sources/NetsimAdmin/Dashboard", problem));
if (problems.length) process.exit(1);
console.log("dashboard lint: " + scripts.length + " scripts and the page, " + ids.size + " ids, no problems");
