"""Who may do what. The human editor's role is recorded (a permission, or superuser), never guessed from a name."""

from dataclasses import dataclass

from django.contrib.auth import get_user_model

from .models import Source

EDITOR_GROUP = "editors"
EDITOR_PERMISSION = "notebooks.edit_any_line"
AGENT_SOURCES = frozenset({Source.SEEN, Source.GUESSED})


@dataclass(frozen=True)
class Actor:
    name: str
    editor: bool = False

    @property
    def role(self) -> str:
        return "editor" if self.editor else "agent"


def actor_named(name: str) -> Actor:
    """The actor for a name: an editor when a user of that name holds the editor role."""
    user = get_user_model().objects.filter(username=name, is_active=True).first()
    return Actor(name=name, editor=bool(user and user_is_editor(user)))


def user_is_editor(user) -> bool:  # noqa: ANN001 - any auth user
    return bool(user.is_active and (user.is_superuser or user.has_perm(EDITOR_PERMISSION)))


def as_actor(by: "Actor | str") -> Actor:
    return by if isinstance(by, Actor) else actor_named(by)
