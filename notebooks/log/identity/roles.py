"""Who is writing: the human editor's role is recorded (a permission, a group, or superuser), not guessed by name."""

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Q

from notebooks.log.rules.alike import alike_key
from notebooks.log.rules.checks import check_name

EDITOR_GROUP = "editors"
EDITOR_PERMISSION = "notebooks.edit_any_line"


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


def user_alike(name: str) -> str | None:
    """The user whose name `name` reads like without being it ("Dad", "dad " or a full-width copy beside dad)."""
    key = alike_key(name)
    users = get_user_model().objects.values_list("username", flat=True)
    return next((user for user in users if user != name and alike_key(user) == key), None)


def user_is_editor(user) -> bool:  # noqa: ANN001 - any auth user
    return bool(user.is_active and (user.is_superuser or user.has_perm(EDITOR_PERMISSION)))


def editor_names() -> set[str]:
    codename = EDITOR_PERMISSION.split(".", 1)[1]
    editors = (
        get_user_model()
        .objects.filter(is_active=True)
        .filter(
            Q(is_superuser=True) | Q(user_permissions__codename=codename) | Q(groups__permissions__codename=codename)
        )
    )
    return set(editors.values_list("username", flat=True))


def as_actor(by: "Actor | str") -> Actor:
    if isinstance(by, Actor):
        check_name(by.name)
        return by
    return actor_named(check_name(by))
