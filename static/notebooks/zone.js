// Tells the server the reader's time zone (a cookie it reads on every request), so it shows his times.
"use strict";

(() => {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!zone) return;
  const had = document.cookie.split("; ").find((c) => c.startsWith("tz="));
  const value = encodeURIComponent(zone);
  if (had === `tz=${value}`) return;
  document.cookie = `tz=${value}; path=/; max-age=31536000; samesite=lax`;
  // The page was drawn in another zone: draw it again in his (once: the cookie now says his zone).
  if (document.documentElement.dataset.zone && document.documentElement.dataset.zone !== zone) {
    window.location.reload();
  }
})();
