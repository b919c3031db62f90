// Dad's card: the little JavaScript htmx cannot do by itself. Every action also works without it.
"use strict";

document.documentElement.classList.add("js");

function say(words) {
  const flash = document.getElementById("flash");
  if (!flash) return;
  const p = document.createElement("p");
  p.className = "message message-error";
  p.textContent = words;
  flash.replaceChildren(p);
}

// Said by screen readers through the page's one live region (#announce), which is there before anything changes.
function announce(words) {
  const live = document.getElementById("announce");
  if (!live || !words) return;
  const p = document.createElement("p");
  p.textContent = words;
  live.replaceChildren(p);
}

document.addEventListener("htmx:responseError", (event) => {
  // A refused request htmx does not swap (403, 404, 500): say so instead of failing silently.
  const status = event.detail.xhr.status;
  const words = {
    403: "Not allowed: only the human editor may change a notebook.",
    404: "Not found: the notebook or line is gone.",
  };
  say(words[status] || `The server refused that (${status}). Reload the page and try again.`);
});

document.addEventListener("htmx:sendError", () => {
  say("The server could not be reached. Nothing was changed; try again.");
});

// ----- the list: one Tab stop, a current line, and keys (the page lists them under "Keyboard shortcuts") -----

const ROW_CONTROLS = ":scope > .line-row input, :scope > .line-row button, :scope > .line-row a, :scope > .line-row summary";

function allLines() {
  return Array.from(document.querySelectorAll("#lines-region li.line"));
}

function rowControls(li) {
  return Array.from(li.querySelectorAll(ROW_CONTROLS));
}

// Roving tabindex: the list is one Tab stop (the current line); a line's own controls are reached with ← and →.
function rove() {
  const lines = allLines();
  let current = null;
  for (const li of lines) {
    const controls = rowControls(li);
    for (const control of controls) control.tabIndex = -1;
    // Its actions are out of the Tab order: its description says how they are reached (a frozen line has none).
    if (li.querySelector(":scope > .line-row .actions") && document.getElementById("line-keys")) li.setAttribute("aria-describedby", "line-keys");
    if (li.tabIndex === 0 && !current) current = li;
    else li.tabIndex = -1;
  }
  if (!current && lines.length) lines[0].tabIndex = 0;
}

function setCurrent(li) {
  for (const other of document.querySelectorAll("#lines-region li.line[tabindex='0']")) {
    if (other !== li) other.tabIndex = -1;
  }
  li.tabIndex = 0;
}

function typingIn(element) {
  return element && element.matches && element.matches("input:not([type=checkbox]):not([type=radio]), textarea, select");
}

// Focus a line (and bring it into view); while he types in the search box, only show it, never steal his focus.
function focusLine(li, center) {
  setCurrent(li);
  li.classList.add("target");
  setTimeout(() => li.classList.remove("target"), 4000);
  if (typingIn(document.activeElement) && document.activeElement.closest("form.toolbar")) {
    li.scrollIntoView({ block: "center" });
    return;
  }
  li.focus({ preventScroll: true });
  li.scrollIntoView({ block: center ? "center" : "nearest" });
}

function lineInView() {
  const lines = allLines();
  const below = parseFloat(document.documentElement.style.scrollPaddingTop) || 0; // under the sticky toolbar
  return lines.find((li) => li.getBoundingClientRect().top >= below) || lines[0];
}

function move(from, step) {
  const lines = allLines();
  const at = from ? lines.indexOf(from) : -1;
  const to = at < 0 ? lineInView() : lines[Math.min(lines.length - 1, Math.max(0, at + step))];
  if (to) focusLine(to, false);
}

function toggleHelp() {
  const help = document.getElementById("keys");
  if (!help) return;
  help.open = !help.open;
  if (help.open) help.querySelector("summary").focus();
}

document.addEventListener("focusin", (event) => {
  const li = event.target.closest && event.target.closest("#lines-region li.line");
  if (li) setCurrent(li);
});

document.addEventListener("keydown", (event) => {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (event.key === "Escape") {
    // Escape cancels an edit (or a retirement, a redaction) opened in a line's place: focus returns to the line.
    const form = target.closest && target.closest("li.line form.line-form");
    const cancel = form && form.querySelector("a.cancel");
    if (cancel) {
      event.preventDefault();
      cancel.click();
    }
    // Escape closes a session's open decision (Land as Dad…, Discard…): focus back on its button, nothing sent.
    const decide = target.closest && target.closest(".decide details[open]");
    if (decide && !cancel) {
      event.preventDefault();
      decide.open = false;
      decide.querySelector("summary").focus();
    }
    return;
  }
  if (event.key === "Enter" && target.closest && target.closest("#select-form") && typingIn(target) && target.tagName !== "TEXTAREA") {
    // Enter sends the action he opened (Merge, Retire or Move selected), not merely the first button of the form.
    const form = target.closest("#select-form");
    const action = form.classList.contains("open-retire") ? "retire" : form.classList.contains("open-move") ? "move" : "merge";
    event.preventDefault();
    form.querySelector(`button[name=action][value=${action}]`).click();
    return;
  }
  if (typingIn(target) || (target.closest && target.closest("form.line-form, .history"))) return;
  const li = target.closest ? target.closest("#lines-region li.line") : null;
  const inRow = li && (target === li || target.closest(".line-row"));
  // Letters act on the page and the list only: on a header link, a radio or a button they are that control's own.
  const free = inRow || target === document.body || target === document.documentElement || Boolean(target.closest && target.closest("#keys"));
  if (!free && !event.key.startsWith("Arrow")) return;
  switch (event.key) {
    case "?":
      toggleHelp();
      break;
    case "/": {
      const search = document.querySelector("form.toolbar input[name=q]");
      if (search) search.focus();
      break;
    }
    case "j":
    case "k":
      move(li, event.key === "j" ? 1 : -1);
      break;
    case "ArrowDown":
    case "ArrowUp":
      if (!inRow) return;
      move(li, event.key === "ArrowDown" ? 1 : -1);
      break;
    case "ArrowRight":
    case "ArrowLeft": {
      if (!inRow) return;
      const stops = [li, ...rowControls(li)];
      const at = stops.indexOf(target);
      const next = stops[(at + (event.key === "ArrowRight" ? 1 : -1) + stops.length) % stops.length];
      next.focus();
      break;
    }
    case "e":
    case "r":
    case "m":
    case "h": {
      const button = li && li.querySelector(`:scope > .line-row [aria-keyshortcuts=${event.key}]`);
      if (!button) return;
      button.click();
      break;
    }
    case "x": {
      const pick = li && li.querySelector(":scope > .line-row input.pick");
      if (!pick) return;
      pick.checked = !pick.checked;
      pick.dispatchEvent(new Event("change", { bubbles: true }));
      break;
    }
    default:
      return;
  }
  event.preventDefault();
});

// A line's Edit, Retire and History are plain links; with JavaScript they go through htmx, in the line's place
// (History into the line's history slot). One listener here, not htmx attributes on every line.
function openAction(button) {
  const li = button.closest("li.line");
  const history = button.getAttribute("aria-keyshortcuts") === "h";
  window.htmx.ajax("GET", button.getAttribute("href"), {
    source: button,
    target: history ? `#history-${li.dataset.n}` : `#${li.id}`,
    swap: history ? "innerHTML" : "outerHTML",
  });
}

document.addEventListener("click", (event) => {
  const button = event.target.closest && event.target.closest("#lines-region li.line > .line-row .actions a.act");
  if (!button || !window.htmx || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  if (listReloading()) actOnceListed(button);
  else openAction(button);
});

// The list is being replaced: the same action on the same line once the new list is in (if it lists the line).
function actOnceListed(button) {
  const n = button.closest("li.line").dataset.n;
  const key = button.getAttribute("aria-keyshortcuts");
  const again = () => {
    const now = document.querySelector(`#line-${n} > .line-row .actions a.act[aria-keyshortcuts="${key}"]`);
    if (now) openAction(now);
  };
  if (listReloading()) afterReload.push(again);
  else again();
}

// ----- the toolbar's list: one request per set of filters, and what he did meanwhile is kept -----

const reloads = new Set();
const afterReload = [];
let listedFor = null; // the toolbar's filters of the list shown or on its way

function listReloading() {
  return reloads.size > 0;
}

function toolbarKey(formData) {
  const pairs = [];
  for (const [name, value] of formData.entries()) if (typeof value === "string") pairs.push(`${name}=${value}`);
  return pairs.sort().join("&");
}

document.addEventListener("htmx:configRequest", (event) => {
  const elt = event.detail.elt;
  if (elt.matches && elt.matches("form.toolbar")) {
    // The search box's change on blur (or Show after the delayed search) asks again for the list just asked for.
    const key = toolbarKey(event.detail.formData);
    if (key === listedFor) {
      event.preventDefault();
      return;
    }
    listedFor = key;
    return;
  }
  if (elt.id === "select-form") {
    // The ticked lines in number order, whichever search showed each: the first is where a merged line stands.
    const numbers = Array.from(new Set(event.detail.formData.getAll("n"))).sort((a, b) => Number(a) - Number(b));
    event.detail.formData.delete("n");
    for (const n of numbers) event.detail.formData.append("n", n);
  }
  if (event.detail.verb !== "get" && elt.closest && elt.closest("#lines-region")) {
    // A change made inside a search answers with the counts of that search: the filters the list was drawn with.
    const params = new URLSearchParams(window.location.search);
    for (const name of VIEW_STATE) {
      if (!event.detail.formData.has(name)) event.detail.formData.set(name, params.get(name) || "");
    }
  }
});

const VIEW_STATE = ["order", "source", "q", "match", "show", "chart"];

document.addEventListener("htmx:beforeSend", (event) => {
  if (!(event.detail.elt.matches && event.detail.elt.matches("form.toolbar"))) return;
  const xhr = event.detail.xhr;
  reloads.add(xhr);
  xhr.addEventListener("loadend", () => {
    reloads.delete(xhr);
    if (xhr.status !== 200) listedFor = null; // refused or cut off: the same filters may be asked again
    if (reloads.size) return;
    for (const action of afterReload.splice(0)) action();
  });
});

// A line's form open when the search replaces the list stays open, with what he typed, if the new list has the line;
// so does the selection bar opened on Merge, Retire or Move selected.
let openForms = [];
let openBar = [];

document.addEventListener("htmx:beforeSwap", (event) => {
  const target = event.detail.target;
  const asker = event.detail.requestConfig && event.detail.requestConfig.elt; // detail.elt is the target here
  const fromToolbar = Boolean(asker && asker.matches && asker.matches("form.toolbar"));
  if (target && target.id === "lines-region") {
    if (!fromToolbar) return; // an action's answer (a restore, a merge) is the list as it now stands
    openForms = Array.from(target.querySelectorAll("li.line:has(> form.line-form)"));
    const bar = target.querySelector("#select-form");
    openBar = bar ? Array.from(bar.classList).filter((name) => /^open(-|$)/.test(name)) : [];
    return;
  }
  if (target && !target.isConnected && target.id) {
    // Its answer came after the list was replaced: it goes where the same line (or slot) now stands.
    const now = document.getElementById(target.id);
    if (now) event.detail.target = now;
    else event.detail.shouldSwap = false;
  }
});

document.addEventListener("htmx:afterSwap", (event) => {
  if (!(event.detail.target && event.detail.target.id === "lines-region") && event.detail.elt.id !== "lines-region") return;
  for (const kept of openForms.splice(0)) {
    const now = document.getElementById(kept.id);
    if (now && !now.querySelector("form.line-form")) now.replaceWith(kept);
  }
  const bar = document.getElementById("select-form");
  const opened = openBar.splice(0);
  if (bar && picked.size && opened.length) bar.classList.add(...opened);
});

// ----- the selection bar: what is ticked, kept across searches, listed in the bar, and in view once ticked -----

// Ticked lines by number, with the start of their words: a search that hides a line keeps its tick.
const picked = new Map();

function picksKey() {
  return `picks:${window.location.pathname}`;
}

function savePicks() {
  try {
    window.sessionStorage.setItem(picksKey(), JSON.stringify(Array.from(picked.entries())));
  } catch (error) {
    // Storage full or refused: the ticks still hold on this page.
  }
}

function loadPicks() {
  try {
    for (const [n, words] of JSON.parse(window.sessionStorage.getItem(picksKey()) || "[]")) picked.set(String(n), words);
  } catch (error) {
    // Nothing kept, or not readable: start from the boxes ticked on the page.
  }
}

function shortWords(li) {
  const words = li && li.querySelector(".words");
  const text = words ? words.textContent.trim().replace(/\s+/g, " ") : "";
  return text.length > 48 ? `${text.slice(0, 46)}…` : text;
}

function togglePick(n, on, li) {
  if (on) picked.set(String(n), picked.get(String(n)) || shortWords(li));
  else picked.delete(String(n));
  savePicks();
}

function listPicks(form) {
  const list = form.querySelector(".sel-list");
  const kept = form.querySelector(".sel-kept");
  if (!list || !kept) return;
  const items = [];
  const hidden = [];
  const numbers = Array.from(picked.keys()).sort((a, b) => Number(a) - Number(b));
  for (const n of numbers) {
    const item = document.createElement("li");
    const num = document.createElement("span");
    num.className = "sel-num";
    num.textContent = `#${n}`;
    const words = document.createElement("span");
    words.className = "sel-words";
    words.textContent = picked.get(n);
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "unpick quiet";
    remove.dataset.n = n;
    remove.setAttribute("aria-label", `Remove #${n} from the selection`);
    remove.textContent = "×";
    item.append(num, " ", words, remove);
    items.push(item);
    if (!document.getElementById(`pick-${n}`)) {
      // Not in the list shown (another search): sent with the form all the same.
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = "n";
      input.value = n;
      hidden.push(input);
    }
  }
  list.replaceChildren(...items);
  kept.replaceChildren(...hidden);
}

function updateSelection() {
  const form = document.getElementById("select-form");
  for (const pick of document.querySelectorAll("input.pick[form=select-form]")) pick.checked = picked.has(pick.value);
  if (!form) return;
  listPicks(form);
  const count = picked.size;
  form.classList.toggle("picking", count > 0);
  const out = form.querySelector(".sel-count");
  // The last line unticked is said too, not left as silence (seen only while lines are ticked).
  if (out) out.textContent = count ? `${count} selected` : out.textContent ? "No lines selected" : "";
  if (out) out.classList.toggle("visually-hidden", !count);
  if (!count && !form.querySelector(".errors, .invalid")) form.classList.remove("open", "open-merge", "open-retire", "open-move");
  // While the bar stands at the bottom, what takes focus (a line's form opened low on a phone) scrolls clear of it.
  const sticky = count > 0 && !form.classList.contains("open");
  document.documentElement.style.scrollPaddingBottom = sticky ? `${form.offsetHeight + 16}px` : "";
}

// A line just ticked low on the screen is not left under the bar that then appears at the bottom.
function clearOfBar(li) {
  const form = document.getElementById("select-form");
  if (!li || !form || !form.classList.contains("picking") || form.classList.contains("open")) return;
  const under = li.getBoundingClientRect().bottom - form.getBoundingClientRect().top;
  if (under > 0) window.scrollBy(0, under + 8);
}

function picksChanged(n, on, li, wordsFrom = li) {
  togglePick(n, on, wordsFrom);
  const form = document.getElementById("select-form");
  if (form) form.classList.remove("done");
  updateSelection();
  clearOfBar(li);
  if (form) askKeepChoices(form);
}

document.addEventListener("change", (event) => {
  if (!(event.target.matches && event.target.matches("input.pick"))) return;
  picksChanged(event.target.value, event.target.checked, event.target.closest("li.line"));
});

// A box or a line's action clicked as a search's answer replaces the list acts on release: a mouse's click is lost
// then (its press and release landed on different elements); a tap's is not (it goes where the finger is at the end).
let pressed = null;
const PRESSABLE = "label.pick-hit, #lines-region li.line > .line-row .actions a.act";

document.addEventListener(
  "pointerdown",
  (event) => {
    const plain = event.pointerType === "mouse" && event.button === 0 && !event.ctrlKey && !event.metaKey && !event.shiftKey;
    const hit = plain && event.target.closest && event.target.closest(PRESSABLE);
    const box = hit && hit.querySelector("input.pick");
    const at = { x: event.clientX, y: event.clientY };
    pressed = hit ? { hit, box, at, li: hit.closest("li.line"), on: Boolean(box && !box.checked) } : null;
  },
  true,
);

document.addEventListener(
  "pointerup",
  (event) => {
    const press = pressed;
    pressed = null;
    if (!press || press.hit.isConnected || !press.li) return;
    if (Math.hypot(event.clientX - press.at.x, event.clientY - press.at.y) > 8) return; // slid off: no click
    if (!press.box) actOnceListed(press.hit);
    // The line as it now stands (perhaps a form), its words as pressed.
    else picksChanged(press.box.value, press.on, document.getElementById(press.li.id) || press.li, press.li);
  },
  true,
);

document.addEventListener("click", (event) => {
  const remove = event.target.closest && event.target.closest("#select-form button.unpick");
  if (!remove) return;
  togglePick(remove.dataset.n, false);
  updateSelection();
  askKeepChoices(document.getElementById("select-form"));
  const next = document.querySelector("#select-form button.unpick") || document.querySelector("#select-form button[name=action]");
  if (next) next.focus();
});

document.addEventListener("reset", (event) => {
  if (event.target.id !== "select-form") return;
  picked.clear();
  savePicks();
  keptChoice = null;
  const choices = event.target.querySelector("#sel-keep");
  if (choices) {
    choices.replaceChildren();
    choices.hidden = true;
  }
  setTimeout(updateSelection);
});

// A 200 to a POST is a change made, but not the selection bar's reads ("Which source will it have?", the words to
// keep): they may carry the action last pressed (htmx sends the form's last clicked button), never make it.
function madeChange(detail) {
  const config = detail.requestConfig;
  if (!config || config.verb !== "post" || detail.xhr.status !== 200) return false;
  const form = config.elt && config.elt.closest && config.elt.closest("#select-form");
  if (!form) return true;
  const sent = config.formData;
  return Boolean(sent && sent.has("action") && !sent.has("preview") && !sent.has("choices"));
}

// Before the answer is swapped in (the form is still in the page).
document.addEventListener("htmx:beforeOnLoad", (event) => {
  // Merged or retired: the selection is done with (a refusal answers 409 or 422 and keeps it).
  const elt = event.detail.elt;
  if (elt.id === "select-form" && madeChange(event.detail)) {
    keptChoice = null;
    picked.clear();
    savePicks();
  }
});

// Merge offers each ticked line's words to keep, as the Similar view does: the server draws the choices (and the
// source each gives) for the lines ticked now, whichever search shows them; his choice outlives a new search.
let keptChoice = null;

function askKeepChoices(form) {
  if (!window.htmx || !form || !form.classList.contains("open-merge") || !form.querySelector("#sel-keep")) return;
  const values = { choices: "1" };
  if (keptChoice && !form.querySelector("input[name=keep]:checked")) values.keep = keptChoice;
  window.htmx.ajax("POST", form.getAttribute("hx-post"), { source: form, target: "#sel-keep", swap: "outerHTML", values });
}

document.addEventListener("change", (event) => {
  if (event.target.matches && event.target.matches("#select-form input[name=keep]")) keptChoice = event.target.value;
});

document.addEventListener("click", (event) => {
  // The first press of Merge, Retire or Move selected opens what it needs (the words, a notebook, a reason); the
  // second sends it.
  const button = event.target.closest && event.target.closest("#select-form button[name=action]");
  if (!button) return;
  const form = button.form;
  const wanted = `open-${button.value}`;
  if (form.classList.contains(wanted)) return;
  event.preventDefault();
  form.classList.remove("open-merge", "open-retire", "open-move", "done");
  form.classList.add("open", wanted);
  updateSelection();
  // Opened, the bar stands below the list, not over the lines it acts on.
  form.scrollIntoView({ block: "nearest" });
  if (button.value === "merge") askKeepChoices(form);
  const firsts = { merge: "textarea[name=words]", move: "select[name=to]" };
  const first = form.querySelector(firsts[button.value] || "input[name=reason]");
  if (first) first.focus({ preventScroll: true });
});

// ----- answers where he looks: focus the line an action changed, and keep his place -----

let lastBeforeMore = null;

document.addEventListener("htmx:beforeRequest", (event) => {
  if (event.detail.elt.closest && event.detail.elt.closest("#more")) {
    const lines = allLines();
    lastBeforeMore = lines.length ? lines[lines.length - 1].id : null;
  }
});

// A note saying what an action did takes the focus the swap took away (a note is no Tab stop of its own).
function focusSaid(said) {
  if (!said) return;
  said.setAttribute("tabindex", "-1");
  said.focus();
}

document.addEventListener("htmx:afterSettle", (event) => {
  rove();
  updateSelection();
  // An edit form opened (e, or Edit): the caret after the words, so typing adds to them, not before them.
  const typing = document.activeElement;
  if (typing && typing.matches("textarea[autofocus]")) typing.setSelectionRange(typing.value.length, typing.value.length);
  const wanted = document.querySelector("[data-focus-line]");
  if (wanted) {
    const li = document.getElementById(`line-${wanted.dataset.focusLine}`);
    wanted.removeAttribute("data-focus-line");
    if (li) {
      focusLine(li, true);
      return;
    }
  }
  const id = event.detail.target && event.detail.target.id;
  const lost = !document.activeElement || document.activeElement === document.body;
  if (id === "more" && lastBeforeMore && lost) {
    // The next page was appended after the last line shown: focus its first line where it is, without a jump.
    const lines = allLines();
    const next = lines[lines.findIndex((li) => li.id === lastBeforeMore) + 1];
    lastBeforeMore = null;
    if (next) {
      setCurrent(next);
      next.focus({ preventScroll: true });
    }
    return;
  }
  if (id && id.startsWith("session-") && lost) {
    // A decision swapped the session in: focus goes to what it now says, not back to the top of the page.
    focusSaid(document.querySelector(`#${id} [role=status]`));
    return;
  }
  if (id === "similar" && lost) {
    // A Similar decision swapped the groups in: focus goes to what it says, so Tab goes on to the next group.
    focusSaid(document.querySelector("#similar-done [role=status]"));
    return;
  }
  if (id === "lines-region" && lost) {
    // Mark reviewed (or any action answered with the whole list): focus goes to the note saying what was done.
    focusSaid(document.querySelector("#lines-region > .note[role=status]"));
    return;
  }
  if (id && id.startsWith("line-") && lost) {
    // Save, Cancel, Escape, Hide history: focus returns to the line that was swapped.
    const li = document.getElementById(id);
    if (li && !li.querySelector("[autofocus]")) focusLine(li, false);
  }
});

// ----- the filters follow the URL: Back shows the list and the toolbar that went with it -----

function fillToolbar() {
  const form = document.querySelector("form.toolbar");
  if (!form) return;
  const params = new URLSearchParams(window.location.search);
  for (const field of form.elements) {
    if (!field.name) continue;
    if (field.type === "radio") field.checked = field.value === (params.get(field.name) || "turn");
    else if (field.type !== "submit" && field.type !== "button") field.value = params.get(field.name) || (field.name === "match" ? "all" : "");
  }
}

document.addEventListener("htmx:historyRestore", () => {
  fillToolbar();
  const toolbar = document.querySelector("form.toolbar");
  if (toolbar) listedFor = toolbarKey(new FormData(toolbar));
});
window.addEventListener("pageshow", fillToolbar);

// A link to a line (#line-N) that this page does not list: ask for the page of the card that holds it.
function openLinkedLine() {
  const found = /^#line-(\d+)$/.exec(window.location.hash);
  if (!found || document.getElementById(`line-${found[1]}`) || !document.getElementById("lines-region")) return false;
  const params = new URLSearchParams(window.location.search);
  if (params.get("line") === found[1]) return false;
  params.set("line", found[1]);
  params.delete("start");
  window.location.replace(`${window.location.pathname}?${params}${window.location.hash}`);
  return true;
}

// ----- text over a limit: counted as he types, refused by the server with the draft kept, never cut -----

function countText(field) {
  const limit = Number(field.dataset.limit);
  if (!limit) return;
  let counter = field.parentElement.querySelector(`.counter[data-for="${field.id}"]`);
  if (!counter) {
    counter = document.createElement("p");
    counter.className = "counter muted";
    counter.dataset.for = field.id;
    counter.setAttribute("aria-live", "polite");
    field.after(counter);
  }
  const used = field.value.length;
  const over = used - limit;
  counter.classList.toggle("over", over > 0);
  counter.hidden = used < limit * 0.8 && over <= 0;
  counter.textContent = over > 0
    ? `${used.toLocaleString("en")} / ${limit.toLocaleString("en")}: ${over.toLocaleString("en")} too many, shorten it to save`
    : `${used.toLocaleString("en")} / ${limit.toLocaleString("en")}`;
}

function countAll(root) {
  for (const field of root.querySelectorAll("[data-limit]")) countText(field);
}

// ----- drafts: what he typed in a form is kept in this tab until it is saved (a lapsed sign-in loses nothing) -----

const DRAFTED = "form.line-form, #add-form, #select-form";

function draftKey(field) {
  const form = field.form;
  return `draft:${form.getAttribute("action")}:${field.name}`;
}

function keepDraft(field) {
  try {
    if (field.value && field.value !== field.defaultValue) window.sessionStorage.setItem(draftKey(field), field.value);
    else window.sessionStorage.removeItem(draftKey(field));
  } catch (error) {
    // Storage full or refused: the draft is still in the form.
  }
}

function dropDrafts(form) {
  for (const field of form.querySelectorAll("textarea, input[type=text]")) {
    try {
      window.sessionStorage.removeItem(draftKey(field));
    } catch (error) {
      // Nothing to drop.
    }
  }
}

function bringBackDrafts(root) {
  for (const form of root.querySelectorAll(DRAFTED)) {
    let back = false;
    for (const field of form.querySelectorAll("textarea, input[type=text]")) {
      let draft = null;
      try {
        draft = window.sessionStorage.getItem(draftKey(field));
      } catch (error) {
        draft = null;
      }
      if (draft && field.value !== draft && (field.value === field.defaultValue || !field.value)) {
        field.value = draft;
        back = true;
      }
    }
    if (back && !form.querySelector(".draft-back")) {
      const note = document.createElement("p");
      note.className = "draft-back note";
      note.setAttribute("role", "status");
      note.textContent = "Your unsaved draft is back: check it, then save.";
      const fields = form.querySelector(".field");
      if (fields) fields.before(note);
      else form.prepend(note);
      if (form.id === "select-form") form.classList.add("open", form.querySelector("textarea[name=words]").value ? "open-merge" : "open-retire");
    }
  }
}

document.addEventListener("input", (event) => {
  const field = event.target;
  if (field.dataset && field.dataset.limit) countText(field);
  if (field.form && field.form.matches(DRAFTED) && field.name) keepDraft(field);
});

document.addEventListener("htmx:beforeOnLoad", (event) => {
  // Saved: its draft is done with. A refusal (409, 422) or the sign-in's redirect (204) keeps it.
  const form = event.detail.elt.closest && event.detail.elt.closest(DRAFTED);
  if (form && madeChange(event.detail)) dropDrafts(form);
});

document.addEventListener("submit", (event) => {
  // Without htmx the form goes as a whole page; the answer (a redirect, or the form with its message) follows.
  if (!window.htmx && event.target.matches(DRAFTED)) dropDrafts(event.target);
});

// ----- on a phone: the filters fold away behind "More filters", so the first line is in the first screen -----

const PHONE = window.matchMedia("(max-width: 600px)");

function foldFilters() {
  const toolbar = document.querySelector("form.toolbar");
  const toggle = toolbar && toolbar.querySelector(".more-toggle");
  if (!toggle) return;
  const fields = toolbar.querySelector(".more-filters");
  const set = Array.from(fields.querySelectorAll("select, input:not([type=radio])")).filter((f) => f.value).length
    + (fields.querySelector("input[type=radio][value=number]:checked") ? 1 : 0);
  toggle.hidden = !PHONE.matches;
  toggle.textContent = set ? `More filters (${set} on)` : "More filters";
  const open = !PHONE.matches || toolbar.classList.contains("unfolded");
  toggle.setAttribute("aria-expanded", String(open));
  toolbar.classList.toggle("folded", !open);
}

document.addEventListener("click", (event) => {
  const toggle = event.target.closest && event.target.closest("form.toolbar .more-toggle");
  if (!toggle) return;
  toggle.form.classList.toggle("unfolded");
  foldFilters();
});

PHONE.addEventListener("change", foldFilters);

document.addEventListener("htmx:afterSettle", (event) => {
  countAll(document);
  countGroups(document);
  bringBackDrafts(document);
  // A new list (a search) draws the bar anew: opened on Merge, it offers the ticked lines' words again.
  if (event.detail.target && event.detail.target.id === "lines-region") askKeepChoices(document.getElementById("select-form"));
});

// ----- the Similar view: a line left out dims and the group's count follows, at once (the form sends the boxes) -----

function countGroup(form) {
  const count = form.closest(".similar-group") && form.closest(".similar-group").querySelector(".group-count");
  let n = 0;
  for (const li of form.querySelectorAll("li.similar-line")) {
    const out = li.querySelector("input[name=out]");
    const add = li.querySelector("input[name=add]");
    const left = Boolean(out && out.checked);
    li.classList.toggle("left-out", left);
    li.classList.toggle("added", Boolean(add && add.checked));
    const said = out && out.parentElement.querySelector(".muted");
    if (said) said.textContent = left ? "left out" : "leave out";
    const keep = li.querySelector("input[name=keep]");
    if (left && keep && keep.checked) keep.checked = false; // a line left out is not the line kept
    if (add ? add.checked : !left) n += 1;
  }
  if (count) count.textContent = `${n} line${n === 1 ? "" : "s"}`;
}

function countGroups(root) {
  for (const form of root.querySelectorAll("form.similar-form")) countGroup(form);
}

document.addEventListener("change", (event) => {
  const field = event.target;
  const form = field.closest && field.closest("form.similar-form");
  if (!form) return;
  const li = field.closest("li.similar-line");
  if (field.name === "keep" && li) {
    // Keeping a line's words takes it into the decision: an also-close line is added, a left-out one is back in.
    const add = li.querySelector("input[name=add]");
    const out = li.querySelector("input[name=out]");
    if (add) add.checked = true;
    if (out) out.checked = false;
  }
  if (["out", "add", "keep"].includes(field.name)) countGroup(form);
});

// A status message is about the view it was said in: leaving that view (another Show, a search) takes it away.
function clearStatus() {
  const flash = document.getElementById("flash");
  if (flash) flash.replaceChildren();
}

document.addEventListener("htmx:afterSwap", (event) => {
  const asker = event.detail.requestConfig && event.detail.requestConfig.elt;
  if (event.detail.target && event.detail.target.id === "lines-region" && asker && asker.matches && asker.matches("form.toolbar")) clearStatus();
});

// A new list from the toolbar (a search, Show, Source) says how many lines it shows: once the choice settles, so
// arrowing through Show's options is not read out at every step.
let countSaid = null;

document.addEventListener("htmx:afterSwap", (event) => {
  const asker = event.detail.requestConfig && event.detail.requestConfig.elt;
  if (!(event.detail.target && event.detail.target.id === "lines-region" && asker && asker.matches && asker.matches("form.toolbar"))) return;
  clearTimeout(countSaid);
  countSaid = setTimeout(() => {
    const said = document.querySelector("#shown-count, #lines-region .empty, #similar-title, .retired-list .group-title");
    if (said) announce(said.textContent.trim().replace(/\s+/g, " "));
  }, 800);
});

// A message the page was loaded with (a plain POST's answer, after its redirect) is said too: a live region's
// words at load are not read out.
document.addEventListener("DOMContentLoaded", () => {
  const flash = document.getElementById("flash");
  const words = flash && flash.textContent.trim().replace(/\s+/g, " ");
  if (words) setTimeout(() => announce(words), 300);
});

// A history opened below its line is said, with how many changes it holds: focus stays on the History link.
document.addEventListener("htmx:afterSwap", (event) => {
  const target = event.detail.target;
  const history = target && target.id && target.id.startsWith("history-") && target.querySelector("section.history");
  if (!history) return;
  const count = history.querySelectorAll("ol.entries > li").length;
  announce(`${history.querySelector("h3").textContent.trim()}, below the line: ${count} ${count === 1 ? "change" : "changes"}.`);
});

// ----- the sticky toolbar: what takes focus, or is scrolled to, stops below it, whatever height it wraps to -----

function clearOfToolbar() {
  const toolbar = document.querySelector("form.toolbar");
  const sticky = toolbar && getComputedStyle(toolbar).position === "sticky";
  document.documentElement.style.scrollPaddingTop = sticky ? `${toolbar.getBoundingClientRect().height + 12}px` : "";
  document.documentElement.classList.toggle("toolbar-sticks", Boolean(sticky));
}

// ----- a restore or undo-merge form: Cancel and Escape put back what it stood in place of, focus on the line -----

const replaced = new Map(); // a line's id -> a copy of what stood there before a form took its place

document.addEventListener("htmx:beforeSwap", (event) => {
  const target = event.detail.target;
  if (target && target.matches && target.matches("li.line") && !target.querySelector("form.line-form")) replaced.set(target.id, target.cloneNode(true));
});

document.addEventListener("click", (event) => {
  const cancel = event.target.closest && event.target.closest("li.line form.line-form a.cancel:not([hx-get])");
  if (!cancel || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const li = cancel.closest("li.line");
  const before = replaced.get(li.id);
  if (!before) return; // the form came with the page: its link goes back to the card
  event.preventDefault();
  replaced.delete(li.id);
  li.replaceWith(before);
  if (window.htmx) window.htmx.process(before);
  rove();
  focusLine(before, false);
});

function start() {
  if (openLinkedLine()) return;
  loadPicks();
  for (const pick of document.querySelectorAll("input.pick[form=select-form]:checked")) togglePick(pick.value, true, pick.closest("li.line"));
  const toolbar = document.querySelector("form.toolbar");
  if (toolbar) listedFor = toolbarKey(new FormData(toolbar));
  foldFilters();
  clearOfToolbar();
  const toolbarShown = document.querySelector("form.toolbar");
  if (toolbarShown && window.ResizeObserver) new ResizeObserver(clearOfToolbar).observe(toolbarShown);
  countAll(document);
  countGroups(document);
  bringBackDrafts(document);
  rove();
  updateSelection();
  const region = document.querySelector("[data-focus-line]");
  if (region) {
    const li = document.getElementById(`line-${region.dataset.focusLine}`);
    region.removeAttribute("data-focus-line");
    if (li) focusLine(li, true);
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
window.addEventListener("hashchange", openLinkedLine);
