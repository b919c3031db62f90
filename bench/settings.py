"""Settings for the benchmarks: the project's own, plus the simple-history peer (never shipped by the product)."""

from notebook_site.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "simple_history", "bench.peer"]  # noqa: F405
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES["staticfiles"]["BACKEND"] = "django.contrib.staticfiles.storage.StaticFilesStorage"  # noqa: F405
DEBUG = False
ALLOWED_HOSTS = [*ALLOWED_HOSTS, "testserver"]  # noqa: F405 - the test client, for the card and the API
# The bench's logs are synthetic, dated from bench/data.py's START at up to 15 minutes a row: years ahead of any
# clock for a million rows. Their times are a script, not a clock to guard (log/rules/checks.py's allowance).
NOTEBOOK_CLOCK_ALLOWANCE = 1e11
ROOT_URLCONF = "bench.floor"  # the project's URLs plus the web floors
