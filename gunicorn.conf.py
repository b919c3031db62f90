"""gunicorn's settings for `make serve` and production (docs/DEPLOY.md); each can be set from the environment."""

import os

# BIND (host:port, or unix:/path) wins; else 127.0.0.1 and PORT. Behind a proxy on another host, BIND=0.0.0.0:8000.
bind = [os.environ.get("BIND") or f"127.0.0.1:{os.environ.get('PORT', '8000')}"]
# Worker processes: WEB_CONCURRENCY (the name gunicorn and most platforms use); 2 per core by default.
workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * (os.cpu_count() or 1))
# Threads per worker (gthread): a request waiting on the database leaves the process to another. Each thread keeps
# its own database connection (CONN_MAX_AGE), so PostgreSQL sees up to workers x threads connections per instance.
worker_class = os.environ.get("WEB_WORKER_CLASS", "gthread")  # "sync": one request a process
threads = int(os.environ.get("WEB_THREADS", "4"))
# A card of many thousand lines is the slowest page; an import through the API can be large.
timeout = int(os.environ.get("WEB_TIMEOUT", "60"))
graceful_timeout = 10
keepalive = 5
# Workers are not recycled by default: each keeps the notebooks' folded views and the card's rendered lines (both
# bounded, log/views/kept.py and card/fragments.py), and a new worker renders a 1,000-line card from scratch
# (about 1.5 s).
# WEB_MAX_REQUESTS=N recycles a worker after N requests (with 10% jitter so they do not restart together).
max_requests = int(os.environ.get("WEB_MAX_REQUESTS", "0"))
max_requests_jitter = max_requests // 10

# Access log on standard output (journald or the container's log), with the request's time: %(M)s milliseconds.
# Neither the Authorization header nor cookies are logged. ACCESS_LOG=- (default), a file, or "off".
_access = os.environ.get("ACCESS_LOG", "-")
accesslog = None if _access == "off" else _access
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s" %(p)s'
errorlog = "-"
loglevel = os.environ.get("WEB_LOG_LEVEL", "info")
# gunicorn believes X-Forwarded-Proto from these addresses only (the proxy's); Django reads it itself (BEHIND_PROXY).
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
wsgi_app = "notebook_site.wsgi:application"
