"""What look-alike titles and names share, so "Zelda-demo" reads as "zelda demo" and "Dad" as "dad". Pure."""

import unicodedata


def alike_key(text: str) -> str:
    """NFKC, casefolded, separators and punctuation dropped ("c++" is not "c"): equal keys read alike."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in folded if unicodedata.category(ch)[0] not in "PZC")
