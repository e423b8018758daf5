// verify-sandbox console: calls the control API (/_sandbox/...) and nothing else.
// No framework, no build step. Live without polling: the sandbox announces every change on
// a stream of server-sent events (/_sandbox/events), and the page then reads what changed.
"use strict";

const $ = (sel) => document.querySelector(sel);
let program = "";
let lastStatus = "";
// The sandbox clock is the local clock plus this (seconds); the page ticks it itself.
let clockDelta = 0;
// What the page did, for the browser test: refreshes happen only at start, after an event
// of the stream, or after an action of the page.
const stats = (window.sandboxConsole = { events: 0, refreshes: 0, actions: 0, streaming: false });

function setStatus(text, error) {
  const s = $("#status");
  s.textContent = text;
  s.className = error ? "error" : "";
}

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (e) {
    setStatus("sandbox unreachable: " + e, true);
    throw e;
  }
  const v = await resp.json();
  if (!resp.ok || v.ok === false) {
    setStatus(method + " " + path + ": " + (v.error || resp.status), true);
    throw new Error(v.error || String(resp.status));
  }
  return v;
}
const get = (path) => api("GET", path);
const post = (path, body) => api("POST", path, body || {});

// The attributes of a cell holding the service's own text (Chinese): its language declared,
// so that the browser picks Simplified Chinese glyphs (the page itself is English).
const ZH = { lang: "zh-CN", class: "service-text" };

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(e.dataset, v);
    else e.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function button(label, cls, onclick) {
  return el("button", { type: "button", class: cls, onclick: async (ev) => {
    ev.preventDefault();
    try { stats.actions++; await onclick(); setStatus(label + ": done"); await refresh(); } catch (e) { /* shown */ }
  } }, label);
}

function fill(tableSel, rows) {
  const body = $(tableSel + " tbody");
  body.replaceChildren(...rows);
}

const q = (params) => {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) u.set(k, v);
  return u.toString();
};

async function refreshPrograms() {
  const v = await get("/_sandbox/programs");
  const sel = $("#program");
  const ids = v.programs.map((p) => p.app_id);
  if (sel.options.length !== ids.length || [...sel.options].some((o, i) => o.value !== ids[i])) {
    sel.replaceChildren(...ids.map((id) => el("option", { value: id }, id)));
  }
  if (!ids.includes(program)) program = ids[0] || "";
  sel.value = program;
  fill("#programs", v.programs.map((p) => el("tr", { dataset: { app: p.app_id } },
    el("td", {}, p.app_id), el("td", {}, p.status), el("td", {}, el("code", {}, p.app_key)),
    el("td", {}, p.api_password_count), el("td", {}, p.dialect),
    el("td", ZH, p.bulletin), el("td", {}, p.version ? p.version.version : ""),
    el("td", {},
      button(p.status === "approved" ? "Suspend" : "Approve", "", () => post("/_sandbox/programs/status",
        { app_id: p.app_id, status: p.status === "approved" ? "pending" : "approved" })),
      button(p.dialect === "alternate" ? "Standard dialect" : "Alternate dialect", "", () => post("/_sandbox/dialect",
        { app_id: p.app_id, dialect: p.dialect === "alternate" ? "standard" : "alternate" })))
  )));
}

async function refreshCards() {
  if (!program) { fill("#cards", []); return; }
  const v = await get("/_sandbox/cards?" + q({ app_id: program, status: $("#card-filter-status").value, q: $("#card-filter-q").value }));
  fill("#cards", v.cards.map((c) => {
    const banned = c.state === "disabled";
    return el("tr", { dataset: { card: c.card, status: c.status } },
      el("td", {}, el("code", {}, c.card)), el("td", ZH, c.type_name),
      el("td", { class: "status st-" + c.status }, c.status),
      el("td", {}, c.device_id || ""),
      el("td", {}, c.kind === "count" ? c.used + "/" + c.total : ""),
      el("td", {}, c.expire_at || ""), el("td", {}, c.heartbeat_at || ""), el("td", ZH, c.reason || ""),
      el("td", {},
        banned
          ? button("Unban", "unban", () => post("/_sandbox/cards/update", { app_id: program, card: c.card, op: "enable" }))
          : button("Ban", "ban danger", () => post("/_sandbox/cards/update", { app_id: program, card: c.card, op: "disable", reason: $("#ban-reason").value })),
        button("Message", "message", async () => { $("#msg-target-kind").value = "card"; $("#msg-target").value = c.card; $("#msg-text").focus(); }),
        button("Delete", "delete danger", () => post("/_sandbox/cards/delete", { app_id: program, card: c.card })))
    );
  }));
}

async function refreshAccounts() {
  if (!program) { fill("#accounts", []); return; }
  const v = await get("/_sandbox/accounts?" + q({ app_id: program, q: $("#account-filter-q").value }));
  fill("#accounts", v.accounts.map((a) => el("tr", { dataset: { username: a.username, status: a.status } },
    el("td", {}, a.username), el("td", {}, a.user_id),
    el("td", { class: "status st-" + a.status }, a.status),
    el("td", {}, a.device_id || ""), el("td", {}, a.bind_count), el("td", {}, a.expire_at),
    el("td", {}, a.social_id || ""), el("td", ZH, a.reason || ""),
    el("td", {},
      a.status === "banned"
        ? button("Unban", "unban", () => post("/_sandbox/accounts/update", { app_id: program, username: a.username, op: "unban" }))
        : button("Ban", "ban danger", () => post("/_sandbox/accounts/update", { app_id: program, username: a.username, op: "ban", reason: $("#ban-reason").value })),
      button("Recharge", "recharge", () => post("/_sandbox/accounts/recharge", { app_id: program, username: a.username, days: Number($("#recharge-days").value) })),
      button("Message", "message", async () => { $("#msg-target-kind").value = "username"; $("#msg-target").value = a.username; $("#msg-text").focus(); }))
  )));
}

async function refreshSessions() {
  if (!program) { fill("#sessions", []); return; }
  const v = await get("/_sandbox/sessions?" + q({ app_id: program }));
  const now = Number($("#clock-now").dataset.unix || 0);
  fill("#sessions", v.sessions.map((s) => el("tr", { class: now - s.heartbeat_unix < 10 ? "fresh" : "", dataset: { subject: s.subject, heartbeat: s.heartbeat_unix } },
    el("td", {}, s.type), el("td", {}, el("code", {}, s.subject)), el("td", {}, s.device_id),
    el("td", {}, s.heartbeat_at), el("td", {}, s.ip || ""), el("td", {}, el("code", {}, s.token)))));
}

async function refreshSocial() {
  const v = await get("/_sandbox/social?" + q({ app_id: program }));
  fill("#social", v.pending.map((p) => el("tr", { dataset: { state: p.state } },
    el("td", {}, el("code", {}, p.state)), el("td", {}, p.kind), el("td", {}, p.username || ""),
    el("td", {}, p.authorized ? "yes" : "no"),
    el("td", {},
      button("Authorize", "authorize", () => post("/_sandbox/social/authorize", { state: p.state, identity: $("#social-identity").value, display_name: $("#social-name").value })),
      button("Deny", "deny danger", () => post("/_sandbox/social/deny", { state: p.state }))))));
}

const beijing = (unix) => new Date((unix + 8 * 3600) * 1000).toISOString().replace("T", " ").slice(0, 19);

// Shows the sandbox clock and fades the highlight of sessions, once a second, without asking
// the sandbox.
function tick() {
  const now = Math.floor(Date.now() / 1000 + clockDelta);
  $("#clock-now").textContent = beijing(now) + " (+08:00)";
  $("#clock-now").dataset.unix = now;
  for (const row of document.querySelectorAll("#sessions tr[data-heartbeat]")) {
    row.classList.toggle("fresh", now - Number(row.dataset.heartbeat) < 10);
  }
}

async function refreshClock() {
  const v = await get("/_sandbox/clock");
  clockDelta = v.now - Date.now() / 1000;
  tick();
  $("#clock-offset").textContent = v.offset ? "offset " + v.offset + " s" : "system clock";
}

let openSeq = null;

async function refreshLog() {
  const params = { limit: 100 };
  if ($("#log-this-program").checked) params.app_id = program;
  const v = await get("/_sandbox/log?" + q(params));
  const recent = v.reverse();
  fill("#log", recent.map((e) => el("tr", {
    class: (e.code === 200 || e.code === 201 ? "" : "refused ") + (e.seq === openSeq ? "open" : ""),
    dataset: { seq: e.seq },
  },
    el("td", {}, e.seq), el("td", {}, beijing(e.at).slice(11)), el("td", {}, e.conn),
    el("td", {}, el("code", {}, e.path)), el("td", {}, e.app_id || "—"),
    el("td", {}, e.action || ""), el("td", { class: "code" }, e.code),
    el("td", { class: "diag" }, e.diagnosis || ""),
    el("td", {}, el("button", { type: "button", class: "open", onclick: () => { location.hash = "log/" + e.seq; } }, "Open")))));
}

// ---- The inspector: one request of the log ----

function rows(tableSel, pairs) {
  fill(tableSel, pairs.map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, el("code", {}, v === null || v === undefined ? "" : String(v))))));
}

function diagnosisItem(d) {
  const item = el("li", { class: "diagnosis sev-" + d.severity, dataset: { kind: d.kind } },
    el("strong", { class: "title" }, d.title), " ", el("small", {}, "(" + d.severity + ", " + d.kind + ")"),
    el("p", { class: "detail" }, d.detail));
  if (d.signed) {
    const s = d.signed;
    const list = el("dl", { class: "signed" },
      el("dt", {}, "the sandbox signs"), el("dd", {}, s.formula),
      el("dt", {}, "the string it signed"), el("dd", { class: "signed-string" }, s.string),
      el("dt", {}, "expected Sign"), el("dd", {}, s.expected),
      el("dt", {}, "Sign sent"), el("dd", {}, s.sent));
    if (s.client_string) list.append(el("dt", {}, "your client signed"), el("dd", { class: "client-string" }, s.client_string));
    item.append(list);
  }
  return item;
}

async function showEntry(seq) {
  let v;
  try { v = await get("/_sandbox/log/" + seq); } catch (e) { return; }
  const e = v.entry;
  openSeq = e.seq;
  for (const row of document.querySelectorAll("#log tr")) row.classList.toggle("open", row.dataset.seq === String(e.seq));
  $("#entry-section").hidden = false;
  $("#entry-section").dataset.seq = e.seq;
  $("#entry-title").textContent = "#" + e.seq + " " + (e.action || e.path) + " → " + e.code + " (" + e.received_at + ", +08:00)";
  $("#entry-why").textContent = e.refusal ? "Refused (" + e.refusal.code + " " + e.refusal.message + "): " + e.refusal.why : "";
  const ds = e.diagnoses || [];
  $("#entry-diagnoses").replaceChildren(...(ds.length ? ds.map(diagnosisItem) : [el("li", { class: "none" }, "nothing to say: the request is as the service wants it")]));
  fill("#entry-form", (e.form || []).map((p) => el("tr", {}, el("td", {}, p.name), el("td", {}, el("code", {}, p.value)))));
  $("#entry-password-from").textContent = e.api_password_from ? "(ApiPassword from the " + e.api_password_from + ")" : "";
  const plain = e.plaintext === null || e.plaintext === undefined;
  $("#entry-plaintext").textContent = !plain ? e.plaintext
    : e.action === "Init" ? "(Init sends its fields in clear: nothing is encrypted)"
    : "(none: the request was refused before Data was decrypted)";
  fill("#entry-params", (e.params || []).map((p) => el("tr", {}, el("td", {}, p.name), el("td", {}, el("code", {}, p.value)))));
  $("#entry-params").hidden = !(e.params || []).length;
  $("#entry-status").textContent = "HTTP " + e.http_status + (e.fault ? ", fault " + e.fault : "");
  $("#entry-reply").textContent = typeof e.reply === "string" ? e.reply : JSON.stringify(e.reply, null, 2);
  const c = e.connection, t = e.timings;
  rows("#entry-timings", [
    ["reading the body", t.read_body_ms + " ms"], ["checks and action", t.handle_ms + " ms"],
    ["fault delay", t.fault_delay_ms + " ms"], ["connection", "#" + c.id + (c.tls ? " (TLS)" : "")],
    ["request on it", c.request_on_connection], ["connection age", c.connection_age_ms + " ms"],
    ["peer", c.peer], ["local", c.local]]);
  rows("#entry-headers", [["method", e.request.method], ["path", e.request.path], ["HTTP", e.request.http_version],
    ...e.request.headers.map((h) => [h.name, h.value])]);
}

function followHash() {
  const m = /^#log\/(\d+)$/.exec(location.hash);
  if (m) showEntry(m[1]);
}
window.addEventListener("hashchange", followHash);
$("#entry-close").addEventListener("click", () => {
  $("#entry-section").hidden = true;
  openSeq = null;
  history.replaceState(null, "", location.pathname);
});

async function refreshFaults() {
  const v = await get("/_sandbox/faults?" + q({ app_id: program }));
  fill("#faults", v.faults.map((f) => el("tr", {},
    el("td", {}, f.kind), el("td", {}, f.app_id || "(all)"), el("td", {}, f.action || "(all)"),
    el("td", {}, f.count === null || f.count === undefined ? "until cleared" : f.count),
    el("td", {}, f.kind === "delay" ? f.delay_ms : ""))));
}

// One refresh at a time; a change announced meanwhile gets one more afterwards.
let refreshing = false;
let again = false;
async function refresh() {
  if (refreshing) { again = true; return; }
  refreshing = true;
  try {
    do {
      again = false;
      stats.refreshes++;
      try {
        await refreshClock();
        await refreshPrograms();
        await Promise.all([refreshCards(), refreshAccounts(), refreshSessions(), refreshSocial(), refreshLog(), refreshFaults()]);
        if ($("#status").className !== "error") setStatus(lastStatus || (stats.streaming ? "live" : "connecting…"));
      } catch (e) {
        /* shown in the status */
      }
    } while (again);
  } finally {
    refreshing = false;
  }
}

function onSubmit(sel, action) {
  $(sel).addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try { stats.actions++; await action(); await refresh(); } catch (e) { /* shown */ }
  });
}

onSubmit("#card-form", async () => {
  const kind = $("#card-kind").value;
  const body = { app_id: program, count: Number($("#card-count").value), kind };
  if (kind === "count") body.total = Number($("#card-total").value);
  else { body.duration = Number($("#card-duration").value); body.duration_type = $("#card-duration-type").value; }
  if ($("#card-type-name").value) body.type_name = $("#card-type-name").value;
  const v = await post("/_sandbox/cards/bulk", body);
  $("#card-created").replaceChildren("created: ", ...v.cards.map((k) => el("code", { class: "new-card" }, k, " ")));
  setStatus("created " + v.cards.length + " card(s)");
});

onSubmit("#account-form", async () => {
  const days = Number($("#account-days").value);
  const expire = new Date(Date.now() + 8 * 3600 * 1000 + days * 86400 * 1000).toISOString().replace("T", " ").slice(0, 19);
  const v = await post("/_sandbox/accounts", { app_id: program, username: $("#account-username").value, password: $("#account-password").value, expire_at: expire });
  setStatus("account created, user_id " + v.user_id);
});

onSubmit("#message-form", async () => {
  const body = { app_id: program, message: $("#msg-text").value };
  body[$("#msg-target-kind").value] = $("#msg-target").value;
  await post("/_sandbox/message", body);
  $("#msg-status").textContent = "queued for " + $("#msg-target").value;
});

onSubmit("#clock-form", async () => { await post("/_sandbox/clock", { shift: Number($("#clock-shift").value) }); });
$("#clock-reset").addEventListener("click", async () => { try { stats.actions++; await post("/_sandbox/clock", { offset: 0 }); await refresh(); } catch (e) { /* shown */ } });

onSubmit("#fault-form", async () => {
  const body = { kind: $("#fault-kind").value };
  if (!$("#fault-all-programs").checked) body.app_id = program;
  if ($("#fault-action").value) body.action = $("#fault-action").value;
  if ($("#fault-count").value) body.count = Number($("#fault-count").value);
  if (body.kind === "delay") body.delay_ms = Number($("#fault-delay").value);
  await post("/_sandbox/faults", body);
  $("#fault-status").textContent = "set: " + JSON.stringify(body);
});
$("#fault-clear").addEventListener("click", async () => {
  try { stats.actions++; await post("/_sandbox/faults/clear", { app_id: program }); $("#fault-status").textContent = "cleared"; await refresh(); } catch (e) { /* shown */ }
});

$("#reset").addEventListener("click", async () => {
  if (!window.confirm("Forget every program, card, account and session?")) return;
  try { stats.actions++; await post("/_sandbox/reset"); await refresh(); } catch (e) { /* shown */ }
});

$("#program").addEventListener("change", () => { stats.actions++; program = $("#program").value; refresh(); });
for (const id of ["#card-filter-status", "#card-filter-q", "#account-filter-q", "#log-this-program"]) {
  $(id).addEventListener("input", () => { stats.actions++; refresh(); });
}

// The stream: an event "change" after every change of the sandbox (at most five a second).
// EventSource reconnects by itself when the sandbox restarts.
function listen() {
  const source = new EventSource("/_sandbox/events");
  stats.source = source;
  source.addEventListener("open", () => { stats.streaming = true; setStatus(lastStatus || "live"); });
  source.addEventListener("change", () => { stats.events++; refresh(); });
  source.addEventListener("error", () => {
    stats.streaming = false;
    setStatus("lost the sandbox's event stream: reconnecting…", true);
  });
}

refresh();
listen();
followHash();
setInterval(tick, 1000);
