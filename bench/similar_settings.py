"""Settings for bench/similar.py: the project's own and the test client's host; no simple-history peer needed."""

from notebook_site.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES["staticfiles"]["BACKEND"] = "django.contrib.staticfiles.storage.StaticFilesStorage"  # noqa: F405
DEBUG = False
ALLOWED_HOSTS = [*ALLOWED_HOSTS, "testserver"]  # noqa: F405
