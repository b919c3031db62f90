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
    for (const control of rowControls(li)) control.tabIndex = -1;
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
  return lines.find((li) => li.getBoundingClientRect().top >= 0) || lines[0];
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
    return;
  }
  if (event.key === "Enter" && target.closest && target.closest("#select-form") && typingIn(target) && target.tagName !== "TEXTAREA") {
    // Enter sends the action he opened (Merge or Retire selected), not merely the first button of the form.
    const form = target.closest("#select-form");
    const action = form.classList.contains("open-retire") ? "retire" : "merge";
    event.preventDefault();
    form.querySelector(`button[name=action][value=${action}]`).click();
    return;
  }
  if (typingIn(target) || (target.closest && target.closest("form.line-form, .history"))) return;
  const li = target.closest ? target.closest("#lines-region li.line") : null;
  const inRow = li && (target === li || target.closest(".line-row"));
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
document.addEventListener("click", (event) => {
  const button = event.target.closest && event.target.closest("#lines-region li.line > .line-row .actions a.act");
  if (!button || !window.htmx || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const li = button.closest("li.line");
  event.preventDefault();
  const history = button.getAttribute("aria-keyshortcuts") === "h";
  window.htmx.ajax("GET", button.getAttribute("href"), {
    source: button,
    target: history ? `#history-${li.dataset.n}` : `#${li.id}`,
    swap: history ? "innerHTML" : "outerHTML",
  });
});

// ----- the selection bar: "3 selected", and it stays in view once a line is ticked -----

function updateSelection() {
  const form = document.getElementById("select-form");
  if (!form) return;
  const count = document.querySelectorAll("input.pick[form=select-form]:checked").length;
  form.classList.toggle("picking", count > 0);
  const out = form.querySelector(".sel-count");
  if (out) out.textContent = count ? `${count} selected` : "";
  if (!count && !form.querySelector(".errors, .invalid")) form.classList.remove("open", "open-merge", "open-retire");
  // While the bar stands at the bottom, what takes focus (a line's form opened low on a phone) scrolls clear of it.
  document.documentElement.style.scrollPaddingBottom = count ? `${form.offsetHeight + 16}px` : "";
}

document.addEventListener("change", (event) => {
  if (event.target.matches && event.target.matches("input.pick")) updateSelection();
});

document.addEventListener("reset", (event) => {
  if (event.target.id === "select-form") setTimeout(updateSelection);
});

document.addEventListener("click", (event) => {
  // The first press of Merge or Retire selected opens what it needs (the words, a reason); the second sends it.
  const button = event.target.closest && event.target.closest("#select-form button[name=action]");
  if (!button) return;
  const form = button.form;
  const wanted = `open-${button.value}`;
  if (form.classList.contains(wanted)) return;
  event.preventDefault();
  form.classList.remove("open-merge", "open-retire");
  form.classList.add("open", wanted);
  const first = form.querySelector(button.value === "merge" ? "textarea[name=words]" : "input[name=reason]");
  if (first) first.focus();
});

// ----- answers where he looks: focus the line an action changed, and keep his place -----

let lastBeforeMore = null;

document.addEventListener("htmx:beforeRequest", (event) => {
  if (event.detail.elt.closest && event.detail.elt.closest("#more")) {
    const lines = allLines();
    lastBeforeMore = lines.length ? lines[lines.length - 1].id : null;
  }
});

document.addEventListener("htmx:afterSettle", (event) => {
  rove();
  updateSelection();
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
    else if (field.type !== "submit" && field.type !== "button") field.value = params.get(field.name) || "";
  }
}

document.addEventListener("htmx:historyRestore", fillToolbar);
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

function start() {
  if (openLinkedLine()) return;
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
