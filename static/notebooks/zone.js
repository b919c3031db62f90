// Tells the server the reader's time zone (a cookie it reads on every request), so it shows his times.
"use strict";

(() => {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!zone) return;
  const had = document.cookie.split("; ").find((c) => c.startsWith("tz="));
  const value = encodeURIComponent(zone);
  if (had === `tz=${value}`) return;
  document.cookie = `tz=${value}; path=/; max-age=31536000; samesite=lax`;
  // The page shows times drawn in another zone: draw it again in his (once: the cookie now says his zone). A page
  // without times (the sign-in form) is left alone, so nothing typed into it is lost.
  const drawnIn = document.documentElement.dataset.zone;
  if (drawnIn && drawnIn !== zone && document.querySelector("time[datetime]")) {
    window.location.reload();
  }
})();
