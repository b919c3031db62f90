"""The card's own fixtures (the shared ones, dad, editor_client, lines, are in tests/conftest.py)."""

import pytest


@pytest.fixture
def agent_user(db):  # noqa: ANN001, ANN201
    """A signed-in person without the editor role: may read, may not write."""
    from django.contrib.auth.models import User

    return User.objects.create_user("pippa-reader", password="a-long-test-password")
