// Dad's card: the little JavaScript htmx cannot do by itself. Every action also works without it.
"use strict";

document.addEventListener("htmx:responseError", (event) => {
  // A refused request htmx does not swap (403, 404, 500): say so instead of failing silently.
  const flash = document.getElementById("flash");
  if (!flash) return;
  const status = event.detail.xhr.status;
  const words = {
    403: "Not allowed: only the human editor may change a notebook.",
    404: "Not found: the notebook or line is gone.",
  };
  const p = document.createElement("p");
  p.className = "message message-error";
  p.textContent = words[status] || `The server refused that (${status}). Reload the page and try again.`;
  flash.replaceChildren(p);
});

document.addEventListener("htmx:sendError", () => {
  const flash = document.getElementById("flash");
  if (!flash) return;
  const p = document.createElement("p");
  p.className = "message message-error";
  p.textContent = "The server could not be reached. Nothing was changed; try again.";
  flash.replaceChildren(p);
});
