"""Words on the knowledge a user brought: the model panel's lines and rows (no Qt).

:func:`vectors_summary` and :func:`status_text` say what the project holds
(:class:`~tagtool.gui.knowledge.KnowledgeController`); :func:`knowledge_rows`
what a model's features read — the word vectors and dictionaries its
extractor was fitted with, which an exported tagger carries too.
"""

from __future__ import annotations

from pathlib import Path

#: How the model panel names the formats of :data:`tagtool.store.vectors.FORMATS`.
FORMAT_TEXT = {
    "word2vec-text": "word2vec text",
    "word2vec-binary": "word2vec binary",
    "glove": "GloVe text",
    "fasttext-bin": "fastText .bin",
}


def plural(n: int, word: str) -> str:
    """``1 entry``, ``3 entries``, ``2,000 patterns``."""
    if n == 1:
        return f"1 {word}"
    return f"{n:,} {word[:-1] + 'ies' if word.endswith('y') else word + 's'}"


def vectors_summary(info) -> str:
    """``news.vec (word2vec text, 100 dimensions, 4,210 of 5,000 words kept)`` from the vectors' ``info``.

    ``info``: :attr:`WordRepresentations.info` as
    :func:`tagtool.services.user_vectors.load_user_vectors` writes it (or the vectors themselves).
    """
    info = dict(getattr(info, "info", info) or {})
    parts = []
    if info.get("format"):
        parts.append(FORMAT_TEXT.get(str(info["format"]), str(info["format"])))
    if info.get("dim"):
        parts.append(f"{int(info['dim'])} dimensions")
    if info.get("words") is not None:
        of = f" of {int(info['vocabulary']):,}" if info.get("vocabulary") else ""
        parts.append(f"{int(info['words']):,}{of} words kept")
    if info.get("from_subwords"):
        parts.append(f"{int(info['from_subwords']):,} from subwords")
    if info.get("ngrams"):
        parts.append("unseen words from n-grams")
    name = Path(str(info.get("file") or "word vectors")).name
    return f"{name} ({', '.join(parts)})" if parts else name


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
            f"{kind} ({source}, {plural(len(gazetteers.entries[kind]), 'entry')})" if source else kind
            for kind, source in gazetteers.sources.items()
        ]
        rows.append(("Dictionaries", ", ".join(listed)))
    return rows


def status_text(controller, progress: str = "") -> str:
    """What the project holds, one line a kind, for the model panel (``progress``: the vectors file's reading)."""
    lines = []
    if controller.reading:
        step = f" ({progress})" if progress and not progress.startswith("reading") else ""  # clustering them
        lines.append(f"Word vectors: reading {controller.reading}…{step}")
    elif controller.vectors is not None:
        off = (
            " — not used: the project's setting vectors.use is off"
            if controller.vectors_off()
            else " — not used for span labels (measured not to pay; name vec in the feature set to use them)"
            if controller.vectors_unused()
            else ""
        )
        lines.append(f"Word vectors: {vectors_summary(controller.vectors)}{off}")
    if controller.dictionaries:
        lines.append(
            "Dictionaries: "
            + ", ".join(f"{d.entity_type} ({d.source}, {plural(len(d), 'entry')})" for d in controller.dictionaries)
        )
    if controller.patterns:
        lines.append("Patterns: " + ", ".join(f"{p.name} ({plural(len(p), 'pattern')})" for p in controller.patterns))
    if controller.adding:
        lines.append(f"Adding {controller.adding}…")
    if controller.error:
        lines.append(f"Last error: {controller.error.splitlines()[0]}")
    if not lines:
        lines.append("None: File › Add word vectors…, Add dictionary… or Add patterns… bring it in.")
    return "\n".join(lines)
