"""The app's models, one module per layer; every name is re-exported here (hence F401), where the app imports it."""

from notebooks.models.agents import IdempotencyKey, Token  # noqa: F401
from notebooks.models.card import ArchiveMark, NotAlike, ReaderZone, ReviewMark, SigninFailure, TurnRead  # noqa: F401
from notebooks.models.log import (  # noqa: F401
    TITLE_PATTERN,
    How,
    Notebook,
    Op,
    Role,
    Row,
    RowProof,
    Snapshot,
    Source,
    Words,
    WriterKey,
    title_validator,
)
from notebooks.models.sessions import EventKind, Session, SessionEvent, SessionLease  # noqa: F401
from notebooks.models.similar import Suggestion, SuggestionDecision  # noqa: F401
from notebooks.models.vault import VaultAlarm, VaultAlarmAck  # noqa: F401
