"""The vault's fixtures: a temporary vault, a zelda of its own (its lines differ from the agent tests' zelda), and
the vault enabled with sessions claiming their titles."""

import pytest


@pytest.fixture
def vault(db, tmp_path, settings):  # noqa: ANN001, ANN201
    from notebooks.vault import Vault

    settings.NOTEBOOK_VAULT = str(tmp_path / "vault")
    return Vault().ensure()


@pytest.fixture
def zelda(notebook, dad):  # noqa: ANN001, ANN201
    """Two of Pippa's lines and one of Dad's."""
    from notebooks.log import services

    services.add(notebook="zelda", text="roll after the second swing", source="seen", by="pippa", why="died twice")
    services.add(notebook="zelda", text="the bridge guard swings twice", source="guessed", by="pippa", why="a guess")
    services.add(notebook="zelda", text="block first", source="dad", by="dad", why="his rule")
    return notebook


@pytest.fixture
def enabled(vault, zelda, settings):  # noqa: ANN001, ANN201
    """The vault enabled, open sessions' titles claimed, and zelda swept into it."""
    settings.NOTEBOOK_VAULT_ENABLED = True
    settings.NOTEBOOK_VAULT_CLAIMS = "notebooks.vault.claims.open_session_titles"
    vault.sweep()
    return vault
