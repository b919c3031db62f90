"""Who may do what. The human editor's role is recorded (a permission, or superuser), never guessed from a name."""

from dataclasses import dataclass

from django.contrib.auth import get_user_model

from notebooks.log.errors import Invalid
from notebooks.models import Source

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


MAX_NAME = 80  # Row.by and Notebook.created_by are 80 characters


def check_name(name: object) -> str:
    """An actor's name as a row records it: refused when empty, too long or not storable text."""
    if not isinstance(name, str) or not name.strip():
        raise Invalid("Say who is writing: the actor's name is empty.")
    if len(name) > MAX_NAME:
        raise Invalid(f"The actor's name is {len(name)} characters long; the limit is {MAX_NAME}.")
    if not name.isprintable():
        raise Invalid("The actor's name contains a control character.")
    if not is_storable(name):
        raise Invalid("The actor's name is not valid Unicode text.")
    return name


def is_storable(text: str) -> bool:
    """False for lone surrogates (from undecodable bytes), which neither UTF-8 nor the databases can store."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def as_actor(by: "Actor | str") -> Actor:
    if isinstance(by, Actor):
        check_name(by.name)
        return by
    return actor_named(check_name(by))
