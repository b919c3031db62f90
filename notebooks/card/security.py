"""Web security Django does not give by itself: a Content-Security-Policy for the app's own files only, an htmx
request's expired sign-in sent to the sign-in page, a write's answer kept when the session cannot be saved after it,
and sign-ins throttled (docs/DEPLOY.md, "The sign-in throttle")."""

import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.forms import UsernameField
from django.contrib.auth.views import LoginView
from django.contrib.sessions.exceptions import SessionInterrupted
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest, HttpResponse
from django.shortcuts import resolve_url
from django.utils.cache import patch_vary_headers

from notebooks.card import throttle

logger = logging.getLogger(__name__)

# No inline script or style, no eval: the card's htmx config turns off its indicator styles, htmx is a static file.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response


class WriteFirstSessionMiddleware(SessionMiddleware):
    """Django's sessions, but a session that cannot be saved after the view (a full disk, a sign-out meanwhile) leaves
    the view's answer as it is: its write is committed, and a 400 would tell the writer it was refused."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        try:
            return super().process_response(request, response)
        except SessionInterrupted:
            logger.warning("%s %s: the session could not be saved after the answer", request.method, request.path)
            patch_vary_headers(response, ("Cookie",))  # as Django's would: the answer was drawn for this session
            return response


class HtmxSignInMiddleware:
    """An htmx request whose sign-in expired goes to the sign-in page whole (HX-Redirect), not swapped into a line."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.headers.get("HX-Request") or response.status_code not in (301, 302, 303, 307, 308):
            return response
        login = resolve_url(settings.LOGIN_URL)
        target = urlsplit(response.get("Location", ""))
        if target.path != login:
            return response
        here = request.get_full_path() if request.method == "GET" else "/"
        for header in ("HX-Current-URL", "Referer"):
            came_from = urlsplit(request.headers.get(header, ""))
            if came_from.path.startswith("/") and came_from.netloc == request.get_host():
                here = urlunsplit(("", "", came_from.path, came_from.query, ""))
                break
        redirect = HttpResponse(status=204)
        redirect["HX-Redirect"] = f"{login}?{urlencode({'next': here})}"
        return redirect


def client_address(request: HttpRequest) -> str:
    """The caller's address; behind the documented proxy, the one the proxy appended last."""
    if settings.SECURE_PROXY_SSL_HEADER is not None:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded.strip():
            return forwarded.split(",")[-1].strip()[:64]
    return request.META.get("REMOTE_ADDR", "")[:64]


def signin_name(raw: object) -> str:
    """The name as sign-in reads it (stripped, NFKC) and casefolded: "dad ", "ｄａｄ", "DAD" and "dad" count as one."""
    # Cut first: normalizing a 2.5 MB field would cost before the count; no username is longer than 150.
    name = UsernameField().to_python(str(raw)[:1000]) or ""
    return AbstractBaseUser.normalize_username(name).strip().casefold()[:150]


def mark_refused(form: Any) -> None:
    """A refused sign-in names no field, so both are marked invalid and described by the message (#signin-error)."""
    if not form.non_field_errors():
        return
    for name in ("username", "password"):
        form.fields[name].widget.attrs.update({"aria-invalid": "true", "aria-describedby": "signin-error"})


class ThrottledLoginView(LoginView):
    """Django's sign-in, refusing a username+address (and an address) after too many failures (card/throttle.py)."""

    attempt: throttle.Attempt

    def _keys(self) -> tuple[str, str]:
        username = signin_name(self.request.POST.get("username", ""))
        address = client_address(self.request)
        return throttle.key("pair", username, address), throttle.key("addr", address)

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        pair, addr = self._keys()
        self.attempt = throttle.begin(
            [(pair, settings.SIGNIN_MAX_FAILURES), (addr, settings.SIGNIN_MAX_FAILURES_PER_ADDRESS)]
        )
        wait = self.attempt.wait
        if wait is None:
            return super().post(request, *args, **kwargs)
        # An unbound form: a blocked attempt never reaches authenticate(), so it cannot guess or cost a hash.
        form = self.get_form_class()(request, initial={"username": str(request.POST.get("username", ""))[:150]})
        minutes = max(1, round(wait / 60))
        form.cleaned_data = {}  # add_error expects a cleaned form; this one is never cleaned
        form.add_error(
            None,
            f"Too many failed sign-ins for this username from your address. "
            f"Wait {minutes} minute{'s' if minutes != 1 else ''} and try again.",
        )
        mark_refused(form)
        response = self.render_to_response(self.get_context_data(form=form), status=429)
        response.headers["Retry-After"] = str(wait)
        return response

    def form_invalid(self, form: Any) -> HttpResponse:
        mark_refused(form)
        return super().form_invalid(form)

    def form_valid(self, form: Any) -> HttpResponse:
        throttle.succeeded(self.attempt, clears=self._keys()[0])
        return super().form_valid(form)
