"""Settings come from the environment; the defaults are for a developer's machine."""

import os
import secrets
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_bool("DEBUG", False)


def _local_secret_key() -> str:
    """Without SECRET_KEY in the environment, a random key kept in var/ (never in the repository)."""
    path = BASE_DIR / "var" / "secret_key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = os.environ.get("SECRET_KEY") or _local_secret_key()
ALLOWED_HOSTS = [h.strip() for h in os.environ.get("ALLOWED_HOSTS", "localhost,127.0.0.1").split(",") if h.strip()]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "notebook_site.staticfiles.StaticFiles",  # django.contrib.staticfiles, leaving out ninja's ReDoc
    "django_htmx",
    "template_partials",
    "ninja",  # its templates and static files: the API's docs page (Swagger UI) served from the app's own origin
    "notebooks",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "notebooks.card.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "notebooks.card.security.WriteFirstSessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "notebooks.card.zones.ReaderZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "notebook_site.middleware.DatabaseUnavailableMiddleware",  # a full disk or a lost connection: 503, not a traceback
    "notebooks.card.security.HtmxSignInMiddleware",
    "notebooks.agents.conditional.UnchangedMiddleware",  # innermost: an unchanged read answered 304 before its URL
]
# An agent's call (a bearer token on the API or /mcp) passes only these (wsgi.py): it uses no sign-in, session or htmx.
AGENT_MIDDLEWARE = [m for m in MIDDLEWARE if m.rsplit(".", 1)[-1] in {"SecurityMiddleware",
                    "ContentSecurityPolicyMiddleware", "CommonMiddleware", "XFrameOptionsMiddleware",
                    "DatabaseUnavailableMiddleware", "UnchangedMiddleware"}]  # fmt: skip

ROOT_URLCONF = "notebook_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "notebook_site.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'var' / 'notebooks.sqlite3'}",
        conn_health_checks=True,
    )
}
# Connections kept 60 s: opening one per request (a cold catalog cache, the PRAGMAs) was most of a warm API read.
DATABASES["default"]["CONN_MAX_AGE"] = int(os.environ.get("CONN_MAX_AGE", "60"))
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL: readers beside a writer; FULL: durable commits; IMMEDIATE: writers wait for the lock, not fail on an upgrade.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        transaction_mode="IMMEDIATE",
        timeout=30,
        init_command=(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA recursive_triggers=ON; PRAGMA foreign_keys=ON;"
        ),
    )
    if DATABASES["default"]["NAME"] != ":memory:":
        # sqlite:///var/x.sqlite3 is the checkout's var/, wherever the command runs from (docs/cli.md).
        DATABASES["default"]["NAME"] = str(BASE_DIR / DATABASES["default"]["NAME"])
        Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # No JIT: every query here is short and indexed, so compiling costs more than it saves.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("options", "-c jit=off")
    # A query run a 5th time is prepared (bench/NOTES.md); PG_PREPARE=0 behind PgBouncer's transaction mode < 1.21.
    if env_bool("PG_PREPARE", True):
        DATABASES["default"]["OPTIONS"].update({"server_side_binding": True, "prepare_threshold": 5})

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "var" / "staticfiles")
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on every request when it is missing
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG
# Source maps are fetched only by a browser's developer tools: compressing the Swagger UI's took most of collectstatic.
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = ["map", "jpg", "jpeg", "png", "gif", "webp", "zip", "gz", "br", "woff", "woff2"]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

# Production hardening, switched on by the environment (see README, "Production").
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
# A load balancer probes the backend over plain HTTP: /healthz answers it rather than redirecting.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_PRELOAD = SECURE_HSTS_SECONDS > 0
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_PROXY", False) else None
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"

# Sign-in throttling (notebooks/card/throttle.py): failures per username+address, and per address, in a window.
SIGNIN_MAX_FAILURES = int(os.environ.get("SIGNIN_MAX_FAILURES", "5"))
SIGNIN_MAX_FAILURES_PER_ADDRESS = int(os.environ.get("SIGNIN_MAX_FAILURES_PER_ADDRESS", "50"))
SIGNIN_WINDOW = int(os.environ.get("SIGNIN_WINDOW", "900"))
# Django's cache (nothing of the app's own is kept in it: sign-in failures are counted in the database).
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": os.environ["CACHE_DIR"]}
    if os.environ.get("CACHE_DIR")
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}

# The notebooks' own limits (docs/architecture.md, "Limits").
NOTEBOOK_MAX_WORDS = int(os.environ.get("NOTEBOOK_MAX_WORDS", "4000"))
NOTEBOOK_MAX_REASON = int(os.environ.get("NOTEBOOK_MAX_REASON", "2000"))
NOTEBOOK_MAX_IMPORT_ROWS = int(os.environ.get("NOTEBOOK_MAX_IMPORT_ROWS", "2000000"))
# Seconds a row's time may be ahead of this server's clock (log/rules/checks.py): a later one is refused, never stamped.
NOTEBOOK_CLOCK_ALLOWANCE = float(os.environ.get("NOTEBOOK_CLOCK_ALLOWANCE", "300"))
# Seconds an Idempotency-Key is kept with its answer (docs/agents.md, "Retries and idempotency"): a day.
NOTEBOOK_IDEMPOTENCY_TTL = float(os.environ.get("NOTEBOOK_IDEMPOTENCY_TTL", "86400"))
# New notebooks one actor may create through the API or MCP per window (one agent made 1,800 in 16 s); Dad more.
NOTEBOOK_NEW_NOTEBOOKS = int(os.environ.get("NOTEBOOK_NEW_NOTEBOOKS", "30"))
NOTEBOOK_NEW_NOTEBOOKS_EDITOR = int(os.environ.get("NOTEBOOK_NEW_NOTEBOOKS_EDITOR", "300"))
NOTEBOOK_NEW_NOTEBOOKS_WINDOW = float(os.environ.get("NOTEBOOK_NEW_NOTEBOOKS_WINDOW", "600"))
# The most lines and characters the Similar view compares, newest first: 10,000 lines or 1.5 million take 4 s or more.
NOTEBOOK_SIMILAR_LINES = int(os.environ.get("NOTEBOOK_SIMILAR_LINES", "5000"))
NOTEBOOK_SIMILAR_CHARACTERS = int(os.environ.get("NOTEBOOK_SIMILAR_CHARACTERS", "500000"))
# Suggestions from outside waiting for Dad per notebook (docs/agents.md, "Suggestions"): past it, 429.
NOTEBOOK_PENDING_SUGGESTIONS = int(os.environ.get("NOTEBOOK_PENDING_SUGGESTIONS", "200"))
# Seconds a session stays open without a call of its holder (docs/agents.md, "Sessions"): then it lapses.
NOTEBOOK_SESSION_TTL = float(os.environ.get("NOTEBOOK_SESSION_TTL", "3600"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

# The vault (docs/vault.md): every notebook mirrored as its JSONL file in a git repository.
NOTEBOOK_VAULT = os.environ.get("NOTEBOOK_VAULT") or str(BASE_DIR / "var" / "vault")
# Sessions' take/checkpoint/land write git commits only when a vault is configured.
NOTEBOOK_VAULT_ENABLED = env_bool("NOTEBOOK_VAULT_ENABLED", bool(os.environ.get("NOTEBOOK_VAULT")))
# Who an outside writer's row is by when it does not say (the older harness wrote adds without `by`).
NOTEBOOK_VAULT_DEFAULT_BY = os.environ.get("NOTEBOOK_VAULT_DEFAULT_BY", "harness")
# The mode of the vault's notebook files, in octal: 0660 with a writers' group lets outside writers append (DEPLOY.md).
NOTEBOOK_VAULT_FILE_MODE = int(os.environ.get("NOTEBOOK_VAULT_FILE_MODE", "0600"), 8)
# The titles claimed by open sessions: the watcher writes their files but leaves committing them to land.
NOTEBOOK_VAULT_CLAIMS = "notebooks.vault.claims.open_session_titles"
# Each outside writer's secret is derived from this one; unset, from SECRET_KEY (changing it changes every writer's).
NOTEBOOK_WRITER_KEY_SECRET = os.environ.get("NOTEBOOK_WRITER_KEY_SECRET", "")
# The key of words' salts: unset, from SECRET_KEY; changing it, later words no longer match older copies' digests.
NOTEBOOK_WORDS_SECRET = os.environ.get("NOTEBOOK_WORDS_SECRET", "")
# An outside row no key proves: "agent" (imported as NOTEBOOK_VAULT_OUTSIDE_AGENT) or "refuse" (with an alarm).
NOTEBOOK_VAULT_UNPROVEN = os.environ.get("NOTEBOOK_VAULT_UNPROVEN", "agent")
NOTEBOOK_VAULT_OUTSIDE_AGENT = os.environ.get("NOTEBOOK_VAULT_OUTSIDE_AGENT", "outside")
