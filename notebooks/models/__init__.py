"""The app's models, one module per layer; every name is importable from notebooks.models as before."""

from notebooks.models.agents import IdempotencyKey, Token
from notebooks.models.card import ArchiveMark, NotAlike, ReaderZone, ReviewMark, SigninFailure, TurnRead
from notebooks.models.log import (
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
from notebooks.models.sessions import EventKind, Session, SessionEvent, SessionLease
from notebooks.models.vault import VaultAlarm, VaultAlarmAck

__all__ = [
    "TITLE_PATTERN",
    "title_validator",
    "Op",
    "Source",
    "How",
    "Role",
    "Notebook",
    "Words",
    "Row",
    "Snapshot",
    "WriterKey",
    "RowProof",
    "Session",
    "SessionLease",
    "EventKind",
    "SessionEvent",
    "Token",
    "IdempotencyKey",
    "VaultAlarm",
    "VaultAlarmAck",
    "SigninFailure",
    "ReviewMark",
    "ReaderZone",
    "TurnRead",
    "ArchiveMark",
    "NotAlike",
]
