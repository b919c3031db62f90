"""A sentence model on the labelled notebooks, measured apart from `make bench` (torch is not in the install).

Two steps, as the model needs torch and the measure needs the project:

    # in a virtualenv with sentence-transformers (and torch), the model's files unpacked in MODEL_DIR:
    python -m bench.similar_sentence embed MODEL_DIR OUT_DIR
    # in the project's virtualenv:
    python -m bench.similar_sentence measure OUT_DIR

`measure` reads each game's cosine matrix, and the max and the mean with TF-IDF's, through the engine's pipeline
(as_pairs, thresholds tuned on the tuned-on game only, engine.group, scores, ceilings), as bench/similar.py does.
Figures: bench/NOTES.md, "A sentence model on the labelled notebooks".
"""

import os
import sys
from pathlib import Path

import numpy as np

from bench import similar_data


def embed(model_dir: str, out: Path) -> None:
    from sentence_transformers import SentenceTransformer  # only in the model's virtualenv

    model = SentenceTransformer(model_dir, device="cpu")
    out.mkdir(parents=True, exist_ok=True)
    for game in similar_data.GAMES:
        x = model.encode([t for _, t, _ in similar_data.load(game).lines], normalize_embeddings=True)
        np.save(out / f"{game}.npy", x @ x.T)


def measure(out: Path) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.similar_settings")
    import django

    django.setup()
    from bench import similar_learned
    from bench.similar import as_pairs, scores, tune_on
    from notebooks.similar import engine

    data = {game: similar_data.load(game) for game in similar_data.GAMES}
    model = {game: np.load(out / f"{game}.npy") for game in data}
    lexical = {}
    for game, d in data.items():
        m = engine.tfidf_matrix([t for _, t, _ in d.lines])[1]
        lexical[game] = (m @ m.T).toarray()
    ways = {
        "sentence model": model,
        "max(tfidf, model)": {g: np.maximum(lexical[g], model[g]) for g in data},
        "mean(tfidf, model)": {g: (lexical[g] + model[g]) / 2 for g in data},
    }
    for name, matrices in ways.items():
        sims = {game: as_pairs(m) for game, m in matrices.items()}
        at = tune_on([(data[similar_data.TUNED_ON], sims[similar_data.TUNED_ON])], quiet=True)
        print(f"{name}: thresholds {at} (tuned on {similar_data.TUNED_ON})")
        for game, d in data.items():
            s = scores(d, engine.group(d.lines, sims[game], repeat_at=at[0], conflict_at=at[1]))
            ceiling = similar_learned.ceilings(d, matrices[game], sims[game], at[1])["groups_recall_at_80"]
            print(
                f"  {game}: repeat {s['repeat_recall']:.2f} at {s['repeat_precision']:.2f}, contradicting labelled "
                f"conflict {s['contradicting_labelled_conflict']:.0%}, groups ceiling {ceiling:.2f}"
            )


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "embed":
        embed(sys.argv[2], Path(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "measure":
        measure(Path(sys.argv[2]))
    else:
        sys.exit(__doc__)
