// verify-sandbox console: calls the control API (/_sandbox/...) and nothing else.
// No framework, no build step; refreshes by polling every second.
"use strict";

const $ = (sel) => document.querySelector(sel);
let program = "";
let lastStatus = "";

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
    try { await onclick(); setStatus(label + ": done"); await refresh(); } catch (e) { /* shown */ }
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
    el("td", {}, p.bulletin), el("td", {}, p.version ? p.version.version : ""),
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
      el("td", {}, el("code", {}, c.card)), el("td", {}, c.type_name),
      el("td", { class: "status st-" + c.status }, c.status),
      el("td", {}, c.device_id || ""),
      el("td", {}, c.kind === "count" ? c.used + "/" + c.total : ""),
      el("td", {}, c.expire_at || ""), el("td", {}, c.heartbeat_at || ""), el("td", {}, c.reason || ""),
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
    el("td", {}, a.social_id || ""), el("td", {}, a.reason || ""),
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
  fill("#sessions", v.sessions.map((s) => el("tr", { class: now - s.heartbeat_unix < 10 ? "fresh" : "", dataset: { subject: s.subject } },
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

async function refreshClock() {
  const v = await get("/_sandbox/clock");
  const t = new Date((v.now + 8 * 3600) * 1000).toISOString().replace("T", " ").slice(0, 19);
  $("#clock-now").textContent = t + " (+08:00)";
  $("#clock-now").dataset.unix = v.now;
  $("#clock-offset").textContent = v.offset ? "offset " + v.offset + " s" : "system clock";
}

async function refreshLog() {
  const v = await get("/_sandbox/log?" + q({ app_id: program }));
  const recent = v.slice(-100).reverse();
  fill("#log", recent.map((e) => el("tr", {},
    el("td", {}, e.seq), el("td", {}, e.conn), el("td", {}, el("code", {}, e.path)),
    el("td", {}, e.action || ""), el("td", {}, e.code))));
}

async function refreshFaults() {
  const v = await get("/_sandbox/faults?" + q({ app_id: program }));
  fill("#faults", v.faults.map((f) => el("tr", {},
    el("td", {}, f.kind), el("td", {}, f.app_id || "(all)"), el("td", {}, f.action || "(all)"),
    el("td", {}, f.count === null || f.count === undefined ? "until cleared" : f.count),
    el("td", {}, f.kind === "delay" ? f.delay_ms : ""))));
}

let refreshing = false;
async function refresh() {
  if (refreshing) return;
  refreshing = true;
  try {
    await refreshClock();
    await refreshPrograms();
    await Promise.all([refreshCards(), refreshAccounts(), refreshSessions(), refreshSocial(), refreshLog(), refreshFaults()]);
    if ($("#status").className !== "error") setStatus(lastStatus || "live");
  } catch (e) {
    /* shown in the status */
  } finally {
    refreshing = false;
  }
}

function onSubmit(sel, action) {
  $(sel).addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try { await action(); await refresh(); } catch (e) { /* shown */ }
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
$("#clock-reset").addEventListener("click", async () => { try { await post("/_sandbox/clock", { offset: 0 }); await refresh(); } catch (e) { /* shown */ } });

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
  try { await post("/_sandbox/faults/clear", { app_id: program }); $("#fault-status").textContent = "cleared"; } catch (e) { /* shown */ }
});

$("#reset").addEventListener("click", async () => {
  if (!window.confirm("Forget every program, card, account and session?")) return;
  try { await post("/_sandbox/reset"); await refresh(); } catch (e) { /* shown */ }
});

$("#program").addEventListener("change", () => { program = $("#program").value; refresh(); });
for (const id of ["#card-filter-status", "#card-filter-q", "#account-filter-q"]) {
  $(id).addEventListener("input", () => refresh());
}

refresh();
setInterval(refresh, 1000);
