// glossa serve: the page. Plain JavaScript, no build step; every piece of
// data is put on the page with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);

const state = {
  glossary: null, // { name, version, entries, ... } as GET /api/glossaries/{name} returns it
  result: null, // the last POST /api/translate answer
  editing: null, // id of the entry in the dialog, or null when adding
  pinned: null, // the highlighted word whose details stay open (tap)
  shown: null, // the highlighted word whose details are shown
};

// ---------------------------------------------------------------------------
// API

async function api(method, path, body, headers) {
  const init = { method, headers: Object.assign({}, headers || {}) };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw Object.assign(new Error("Cannot reach the glossa server. Is it still running?"), { status: 0 });
  }
  let data = null;
  try {
    data = await response.json();
  } catch (e) {
    data = null;
  }
  if (!response.ok) {
    const message = (data && data.error) || `The server answered ${response.status}.`;
    throw Object.assign(new Error(message), { status: response.status, data });
  }
  return data;
}

const glossaryPath = (name) => `/api/glossaries/${encodeURIComponent(name)}`;

// "1 entry", "2 entries".
function count(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function setStatus(text, kind) {
  const s = $("status");
  s.textContent = text || "";
  s.className = "status" + (kind ? " " + kind : "");
}

// ---------------------------------------------------------------------------
// Start

async function start() {
  $("translate").addEventListener("click", translate);
  $("post").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) translate();
  });
  $("copy").addEventListener("click", copy);
  $("glossary").addEventListener("change", () => {
    localStorage.setItem("glossa.glossary", $("glossary").value);
    loadGlossary($("glossary").value);
  });
  $("provider").addEventListener("change", () => localStorage.setItem("glossa.provider", $("provider").value));
  $("add-entry").addEventListener("click", () => openEntry(null));
  $("filter").addEventListener("input", renderEntries);
  $("entry-form").addEventListener("submit", saveEntry);
  $("entry-cancel").addEventListener("click", () => $("entry-dialog").close());
  $("entry-reload").addEventListener("click", reloadForDialog);
  $("new-glossary").addEventListener("click", () => {
    $("glossary-error").textContent = "";
    $("glossary-dialog").showModal();
    $("g-name").focus();
  });
  $("glossary-cancel").addEventListener("click", () => $("glossary-dialog").close());
  $("glossary-form").addEventListener("submit", (e) => {
    e.preventDefault();
    createGlossary();
  });
  document.addEventListener("click", (e) => {
    if (!e.target.closest(".term") && !e.target.closest("#popover")) hidePopover(true);
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") hidePopover(true);
  });
  window.addEventListener("resize", () => {
    if (state.shown && !$("popover").hidden) place($("popover"), state.shown);
  });

  try {
    const [config, list] = await Promise.all([api("GET", "/api/config"), api("GET", "/api/glossaries")]);
    const providerSelect = $("provider");
    for (const p of config.providers) providerSelect.append(el("option", { value: p.name }, p.label));
    const savedProvider = localStorage.getItem("glossa.provider");
    if (config.providers.some((p) => p.name === savedProvider)) providerSelect.value = savedProvider;

    const select = $("glossary");
    const usable = list.glossaries.filter((g) => !g.error);
    for (const g of list.glossaries) {
      const label = g.error ? `${g.name} (cannot be read)` : `${g.name} (${count(g.entries, "entry", "entries")})`;
      select.append(el("option", { value: g.name, disabled: !!g.error, title: g.error || "" }, label));
    }
    if (usable.length === 0) {
      setStatus(`No glossary yet in ${list.dir}: create one with “New glossary” below.`, "error");
      $("translate").disabled = true;
      for (const g of list.glossaries.filter((g) => g.error)) setStatus(g.error, "error");
      $("add-entry").disabled = true;
      document.body.dataset.ready = "true";
      return;
    }
    const saved = localStorage.getItem("glossa.glossary");
    const pick = usable.find((g) => g.name === saved) || usable.find((g) => g.name === "cafe") || usable[0];
    select.value = pick.name;
    await loadGlossary(pick.name);
    // A file that cannot be read says why, even when others can.
    const broken = list.glossaries.filter((g) => g.error);
    if (broken.length > 0) setStatus(broken.map((g) => g.error).join(" · "), "error");
    document.body.dataset.ready = "true";
  } catch (e) {
    setStatus(e.message, "error");
  }
}

// ---------------------------------------------------------------------------
// Translate

async function translate() {
  const text = $("post").value;
  if (!text.trim()) {
    setStatus("Paste a post first.", "error");
    $("post").focus();
    return;
  }
  const button = $("translate");
  button.disabled = true;
  setStatus("Translating…");
  try {
    const result = await api("POST", "/api/translate", {
      text,
      glossary: $("glossary").value,
      provider: $("provider").value,
    });
    state.result = result;
    renderResult();
    setStatus("");
    if (state.glossary && result.version !== state.glossary.version) {
      // Someone changed the glossary elsewhere: show the newest entries.
      loadGlossary(result.glossary);
    }
  } catch (e) {
    setStatus(e.message, "error");
  } finally {
    button.disabled = false;
  }
}

// What a kind means and whether it is approximate come from the server
// (`how`, `approximate`): the page lists no kinds of its own.
function howText(entry) {
  return `${entry.kind}: ${entry.how || entry.kind}`;
}

// The classes of a matched entry: its kind, and `approximate` for a close
// spelling (underlined dashed).
function kindClasses(entry) {
  return `kind-${entry.kind}${entry.approximate ? " approximate" : ""}`;
}

function renderResult() {
  const r = state.result;
  $("result").hidden = false;
  hidePopover(true);
  // The offline provider calls no model: it only puts glossary words in
  // place of the English ones, and the page says so plainly.
  const offline = r.provider === "offline";
  $("result-title").textContent = offline ? "Glossary words put in (no translation)" : "Translation";
  $("offline-note").hidden = !offline;

  const box = $("translation");
  box.replaceChildren();
  for (const seg of r.segments) {
    if (seg.entry === undefined || seg.entry === null) {
      box.append(seg.text);
    } else {
      const entry = r.entries[seg.entry];
      const mark = el(
        "mark",
        {
          class: `term ${kindClasses(entry)}`,
          tabindex: "0",
          role: "button",
          "aria-label": `${seg.text}: glossary word for ${entry.source}`,
          dataset: { entry: String(seg.entry), id: entry.id },
        },
        seg.text,
      );
      // Hover and focus preview on wide screens; on a phone a tap opens it.
      mark.addEventListener("mouseenter", () => docked() || showPopover(mark, false));
      mark.addEventListener("mouseleave", () => docked() || hidePopover(false));
      mark.addEventListener("focus", () => docked() || showPopover(mark, false));
      mark.addEventListener("blur", () => docked() || hidePopover(false));
      mark.addEventListener("click", (e) => {
        e.stopPropagation();
        if (state.pinned === mark) hidePopover(true);
        else showPopover(mark, true);
      });
      mark.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          showPopover(mark, true);
        }
      });
      box.append(mark);
    }
  }

  // What the check looked at, and what it did not.
  $("check").textContent = r.check || "";
  $("check").hidden = !r.check;

  const warnings = $("warnings");
  warnings.replaceChildren();
  const noEntry = r.warnings.filter((w) => w.kind === "no_entry");
  for (const w of r.warnings.filter((w) => w.kind !== "no_entry")) {
    const li = el("li", { class: `warning ${w.kind}` }, w.message);
    if (w.entry) {
      li.append(" ", el("button", { type: "button", class: "link", onclick: () => openEntry(w.entry) }, "edit entry"));
    }
    warnings.append(li);
  }
  if (noEntry.length) {
    const li = el("li", { class: "warning no_entry" });
    li.append(
      noEntry.length === 1 ? noEntry[0].message : `${noEntry.length} words matched no entry:`,
      " ",
    );
    const words = el("span", { class: "chips" });
    for (const w of noEntry) {
      words.append(
        el(
          "button",
          {
            type: "button",
            class: "chip",
            title: `Add '${w.word}' to the glossary`,
            "aria-label": `Add ${w.word} to the glossary`,
            onclick: () => openEntry(null, { source: w.word }),
          },
          w.word,
          el("span", { "aria-hidden": "true" }, " +"),
        ),
      );
    }
    li.append(words);
    warnings.append(li);
  }

  const used = $("used");
  used.replaceChildren();
  if (r.entries.length === 0) used.append(el("li", { class: "empty" }, "No glossary entry matched this post."));
  r.entries.forEach((entry) => {
    used.append(
      el(
        "li",
        { dataset: { id: entry.id } },
        el("span", { class: "pair" }, el("b", {}, entry.source), " → ", el("b", {}, entry.target)),
        el("span", { class: `badge ${kindClasses(entry)}` }, entry.kind),
        el("span", { class: "found" }, `found as '${entry.phrase}'`),
        entry.in_output === false && entry.inside
          ? el("span", { class: "found" }, `inside '${entry.inside}', whose word is used`)
          : entry.in_output === false
            ? el("span", { class: "missing" }, "not in the translation")
            : null,
        el("button", { type: "button", class: "link", onclick: () => openEntry(entry.id) }, "edit"),
      ),
    );
  });
  const model = r.model ? `${r.provider} ${r.model}` : r.provider;
  $("meta").textContent = `${model}${r.cached ? " (cached)" : ""} · glossary ${r.glossary} · ${Math.round(r.ms)} ms`;
}

function showPopover(mark, pin) {
  const r = state.result;
  const entry = r && r.entries[Number(mark.dataset.entry)];
  if (!entry) return;
  if (pin) state.pinned = mark;
  else if (state.pinned && state.pinned !== mark) return;
  const pop = $("popover");
  const parts = [
    el("button", { type: "button", class: "pop-close", "aria-label": "Close", onclick: () => hidePopover(true) }, "×"),
    el("div", { class: "pop-pair" }, el("b", {}, entry.source), " → ", el("b", {}, entry.target)),
    entry.sense ? el("div", { class: "pop-sense" }, entry.sense) : null,
    el("div", { class: "pop-how" }, "Your post says ", el("q", {}, entry.phrase), ` — matched by ${howText(entry)}`),
    entry.aliases && entry.aliases.length ? el("div", { class: "pop-aliases" }, `Other source forms: ${entry.aliases.join(", ")}`) : null,
    entry.forms && entry.forms.length ? el("div", { class: "pop-aliases" }, `Accepted target forms: ${entry.forms.join(", ")}`) : null,
    entry.forbidden && entry.forbidden.length ? el("div", { class: "pop-aliases" }, `Never write: ${entry.forbidden.join(", ")}`) : null,
    el("button", { type: "button", class: "link", onclick: () => { hidePopover(true); openEntry(entry.id); } }, "Edit this entry"),
  ];
  pop.replaceChildren(...parts.filter(Boolean));
  pop.hidden = false;
  pop.dataset.id = entry.id;
  state.shown = mark;
  place(pop, mark);
}

// Phone width: the details are docked at the bottom of the screen (CSS).
const docked = () => window.matchMedia("(max-width: 600px)").matches;

function place(pop, mark) {
  if (docked()) {
    pop.style.left = "";
    pop.style.top = "";
    // Keep the tapped word visible above the docked card.
    document.body.style.paddingBottom = `${pop.offsetHeight + 16}px`;
    const word = mark.getBoundingClientRect();
    const card = pop.getBoundingClientRect();
    if (word.bottom > card.top - 8) window.scrollBy(0, word.bottom - card.top + 16);
    return;
  }
  document.body.style.paddingBottom = "";
  const rect = mark.getBoundingClientRect();
  const width = pop.offsetWidth;
  const left = Math.max(8, Math.min(window.scrollX + rect.left, window.scrollX + document.documentElement.clientWidth - width - 8));
  pop.style.left = `${left}px`;
  pop.style.top = `${window.scrollY + rect.bottom + 6}px`;
}

function hidePopover(force) {
  if (!force && state.pinned) return;
  state.pinned = null;
  state.shown = null;
  $("popover").hidden = true;
  document.body.style.paddingBottom = "";
}

async function copy() {
  const text = state.result ? state.result.translation : "";
  const button = $("copy");
  try {
    await navigator.clipboard.writeText(text);
  } catch (e) {
    // Not a secure context (e.g. opened by LAN address): the old way.
    const area = el("textarea", { style: "position:fixed;opacity:0" }, text);
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  button.textContent = "Copied";
  setTimeout(() => (button.textContent = "Copy"), 1500);
}

// ---------------------------------------------------------------------------
// Glossary

// Create a glossary from the page: a name, a language and a first entry
// (a glossary holds at least one), saved with PUT as a new file.
async function createGlossary() {
  const name = $("g-name").value.trim();
  const body = {
    name,
    source_lang: "en",
    target_lang: $("g-lang").value.trim() || undefined,
    entries: [{ source: $("g-source").value.trim(), target: $("g-target").value.trim() }],
  };
  try {
    const g = await api("PUT", glossaryPath(name), body);
    $("glossary-dialog").close();
    const select = $("glossary");
    select.append(el("option", { value: g.name }, `${g.name} (${count(g.entries.length, "entry", "entries")})`));
    select.value = g.name;
    localStorage.setItem("glossa.glossary", g.name);
    $("translate").disabled = false;
    $("add-entry").disabled = false;
    setStatus(`Created ${g.name}.`);
    setGlossary(g);
  } catch (e) {
    // Replacing a glossary needs its version: a name in use answers 428.
    $("glossary-error").textContent =
      e.status === 428 ? `A glossary named ${name} already exists: choose another name.` : e.message;
  }
}

async function loadGlossary(name) {
  try {
    state.glossary = await api("GET", glossaryPath(name));
    renderEntries();
  } catch (e) {
    $("editor-note").textContent = e.message;
  }
}

function setGlossary(g) {
  state.glossary = g;
  const option = [...$("glossary").options].find((o) => o.value === g.name);
  if (option) option.textContent = `${g.name} (${count(g.entries.length, "entry", "entries")})`;
  renderEntries();
}

function renderEntries() {
  const g = state.glossary;
  if (!g) return;
  $("editor-title").textContent = `Glossary: ${g.name}`;
  // A language by its name where the table knows it: "English → Khmer (km)".
  const lang = (code, name) => (name ? `${name} (${code})` : code);
  $("editor-note").textContent = `${count(g.entries.length, "entry", "entries")} · ${lang(g.source_lang, g.source_language)} → ${lang(g.target_lang, g.target_language)}`;
  const needle = $("filter").value.trim().toLowerCase();
  const list = $("entries");
  list.replaceChildren();
  for (const e of g.entries) {
    const hay = [e.id, e.source, e.target, e.sense || "", ...(e.aliases || []), ...(e.forms || []), ...(e.forbidden || [])].join(" ").toLowerCase();
    if (needle && !hay.includes(needle)) continue;
    list.append(
      el(
        "li",
        { dataset: { id: e.id } },
        el(
          "div",
          { class: "entry-main" },
          el("span", { class: "pair" }, el("b", {}, e.source), " → ", el("b", {}, e.target)),
          e.forms && e.forms.length ? el("span", { class: "aliases" }, `or: ${e.forms.join(", ")}`) : null,
          e.forbidden && e.forbidden.length ? el("span", { class: "aliases forbidden" }, `never: ${e.forbidden.join(", ")}`) : null,
          e.sense ? el("span", { class: "sense" }, e.sense) : null,
          e.aliases && e.aliases.length ? el("span", { class: "aliases" }, `also: ${e.aliases.join(", ")}`) : null,
          e.case_sensitive || e.keep
            ? el("span", { class: "aliases" }, [e.keep ? "kept as written" : "", e.case_sensitive ? "match case" : ""].filter(Boolean).join(", "))
            : null,
        ),
        el(
          "div",
          { class: "entry-buttons" },
          el("button", { type: "button", class: "edit", onclick: () => openEntry(e.id) }, "Edit"),
          el("button", { type: "button", class: "delete", onclick: () => deleteEntry(e.id) }, "Delete"),
        ),
      ),
    );
  }
}

const splitList = (text) => text.split(",").map((s) => s.trim()).filter(Boolean);

function openEntry(id, prefill) {
  hidePopover(true);
  const g = state.glossary;
  if (!g) return;
  const entry = id === null ? null : g.entries.find((e) => e.id === id);
  if (id !== null && !entry) {
    setStatus(`The entry '${id}' is no longer in the glossary.`, "error");
    return;
  }
  state.editing = id;
  const e = entry || Object.assign({ source: "", target: "" }, prefill || {});
  $("entry-title").textContent = entry ? `Edit '${entry.source}'` : "Add an entry";
  $("f-source").value = e.source || "";
  $("f-target").value = e.target || "";
  $("f-forms").value = (e.forms || []).join(", ");
  $("f-forbidden").value = (e.forbidden || []).join(", ");
  $("f-sense").value = e.sense || "";
  $("f-aliases").value = (e.aliases || []).join(", ");
  $("f-case").checked = !!e.case_sensitive;
  $("f-keep").checked = !!e.keep;
  $("f-any").value = ((e.context && e.context.any) || []).join(", ");
  $("f-not").value = ((e.context && e.context.not) || []).join(", ");
  $("f-id").value = entry ? entry.id : "";
  $("f-more").open = !!(e.context && (e.context.any || e.context.not));
  showDialogError(null);
  $("entry-dialog").showModal();
  (entry ? $("f-target") : e.source ? $("f-target") : $("f-source")).focus();
}

function showDialogError(message, stale) {
  const box = $("entry-error");
  box.textContent = message || "";
  box.hidden = !message;
  $("entry-reload").hidden = !stale;
}

function formEntry() {
  const entry = {
    source: $("f-source").value.trim(),
    target: $("f-target").value.trim(),
  };
  const id = $("f-id").value.trim();
  if (id) entry.id = id;
  const sense = $("f-sense").value.trim();
  if (sense) entry.sense = sense;
  const forms = splitList($("f-forms").value);
  if (forms.length) entry.forms = forms;
  const forbidden = splitList($("f-forbidden").value);
  if (forbidden.length) entry.forbidden = forbidden;
  const aliases = splitList($("f-aliases").value);
  if (aliases.length) entry.aliases = aliases;
  if ($("f-case").checked) entry.case_sensitive = true;
  // A kept entry's target is its source: left out when empty.
  if ($("f-keep").checked) {
    entry.keep = true;
    if (!entry.target) delete entry.target;
  }
  const any = splitList($("f-any").value);
  const not = splitList($("f-not").value);
  if (any.length || not.length) {
    entry.context = {};
    if (any.length) entry.context.any = any;
    if (not.length) entry.context.not = not;
  }
  return entry;
}

async function saveEntry(event) {
  event.preventDefault();
  const g = state.glossary;
  const entry = formEntry();
  if (!entry.source || (!entry.target && !entry.keep)) {
    showDialogError("Fill in both the source and the target.");
    return;
  }
  const save = $("entry-save");
  save.disabled = true;
  try {
    const headers = { "If-Match": `"${g.version}"` };
    const updated =
      state.editing === null
        ? await api("POST", `${glossaryPath(g.name)}/entries`, entry, headers)
        : await api("PUT", `${glossaryPath(g.name)}/entries/${encodeURIComponent(state.editing)}`, entry, headers);
    setGlossary(updated);
    $("entry-dialog").close();
    setStatus(
      state.result ? `Saved '${entry.source}'. Translate again to use it.` : `Saved '${entry.source}'.`,
      "ok",
    );
  } catch (e) {
    showDialogError(e.message, e.status === 409);
  } finally {
    save.disabled = false;
  }
}

// After a 409: take the newest glossary, keep what was typed, save again.
async function reloadForDialog() {
  const g = state.glossary;
  try {
    setGlossary(await api("GET", glossaryPath(g.name)));
    const still = state.editing === null || state.glossary.entries.some((e) => e.id === state.editing);
    showDialogError(
      still
        ? "Loaded the newest version. Your changes are still in the form: check them and save again."
        : `The entry was deleted or renamed meanwhile; your changes will be added as a new entry.`,
    );
    if (!still) state.editing = null;
  } catch (e) {
    showDialogError(e.message);
  }
}

async function deleteEntry(id) {
  const g = state.glossary;
  const entry = g.entries.find((e) => e.id === id);
  if (!entry || !window.confirm(`Delete '${entry.source} → ${entry.target}' from ${g.name}? A backup of the glossary is kept.`)) return;
  try {
    setGlossary(
      await api("DELETE", `${glossaryPath(g.name)}/entries/${encodeURIComponent(id)}`, undefined, {
        "If-Match": `"${g.version}"`,
      }),
    );
    setStatus(`Deleted '${entry.source}'.`, "ok");
  } catch (e) {
    setStatus(e.message, "error");
    if (e.status === 409) loadGlossary(g.name);
  }
}

start();
