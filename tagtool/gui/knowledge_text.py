"""Words on the knowledge a user brought: the model panel's lines and rows (no Qt).

:func:`vectors_summary` and :func:`status_text` say what the project holds
(:class:`~tagtool.gui.knowledge.KnowledgeController`); :func:`knowledge_rows`
what a model's features read — the word vectors and dictionaries its
extractor was fitted with, which an exported tagger carries too.
"""

from __future__ import annotations

from pathlib import Path


def vectors_summary(reps) -> str:
    """``glove.txt (GloVe text, 100 dimensions, 4,210 words kept)`` from the vectors' ``info``."""
    info = dict(getattr(reps, "info", {}) or {})
    source = info.get("source") or info.get("file") or "word vectors"
    parts = []
    if info.get("format"):
        parts.append(str(info["format"]))
    if info.get("dim"):
        parts.append(f"{int(info['dim'])} dimensions")
    kept = info.get("words_kept", info.get("kept"))
    if kept is None and getattr(reps, "words", None) is not None:
        kept = len(reps.words)
    if kept is not None:
        parts.append(f"{int(kept):,} words kept")
    subwords = info.get("words_from_subwords", info.get("subword_words"))
    if subwords:
        parts.append(f"{int(subwords):,} from subwords")
    return f"{Path(str(source)).name} ({', '.join(parts)})" if parts else Path(str(source)).name


def knowledge_rows(extractor) -> list[tuple[str, str]]:
    """The model panel's rows on what a model's features read: the word vectors and dictionaries it was fitted with.

    Read from the tagger's own extractor (what an exported tagger carries), not from the project.
    """
    rows = []
    vectors = getattr(extractor, "vectors", None)
    if vectors is not None:
        rows.append(("Word vectors", vectors_summary(vectors)))
    gazetteers = getattr(extractor, "gazetteers", None)
    if gazetteers is not None:
        listed = [
            f"{kind} ({source}, {len(gazetteers.entries[kind]):,} entries)" if source else kind
            for kind, source in gazetteers.sources.items()
        ]
        rows.append(("Dictionaries", ", ".join(listed)))
    return rows


def status_text(controller) -> str:
    """What the project holds, one line a kind, for the model panel."""
    lines = []
    if controller.reading:
        lines.append(f"Word vectors: reading {controller.reading}…")
    elif controller.vectors is not None:
        lines.append(f"Word vectors: {vectors_summary(controller.vectors)}")
    if controller.dictionaries:
        lines.append(
            "Dictionaries: "
            + ", ".join(f"{d.entity_type} ({d.source}, {len(d):,} entries)" for d in controller.dictionaries)
        )
    if controller.patterns:
        lines.append("Patterns: " + ", ".join(f"{p.name} ({len(p):,})" for p in controller.patterns))
    if controller.adding:
        lines.append(f"Adding {controller.adding}…")
    if controller.error:
        lines.append(f"Last error: {controller.error.splitlines()[0]}")
    if not lines:
        lines.append("None: File › Add word vectors…, Add dictionary… or Add patterns… bring it in.")
    return "\n".join(lines)
