"""The agent's JSON API (token-authenticated); its routes are added by the API."""

urlpatterns: list = []
