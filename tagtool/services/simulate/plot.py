"""Cost → F1 curves of simulations drawn with matplotlib (the ``plot`` extra; ``tagtool simulate --plot``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tagtool.services.simulate.config import STRATEGIES, TARGET_SHARE, SimulationError
from tagtool.services.simulate.results import SimulationResult


def check_plotting() -> None:
    """Raise :class:`SimulationError` unless matplotlib (the ``plot`` extra) can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise SimulationError("--plot needs matplotlib: pip install 'tagtool[plot]'") from None


def draw_curves(ax, results: Sequence[SimulationResult], title: str = "") -> None:
    """Draw F1 against cost (log scale) of ``results`` on a matplotlib ``ax``.

    The colour says the strategy and the line the mode (solid ``full``,
    dashed ``tokens``, dash-dotted ``partial``, dotted ``review``), the same in every plot; the
    grey dotted line is 95 % of the first result's full-data F1, and a dot
    marks each curve's ``cost_to_95`` point.
    """
    styles = {"full": "-", "tokens": "--", "partial": "-.", "review": (0, (1, 1))}
    for r in results:
        color = f"C{STRATEGIES.index(r.strategy)}" if r.strategy in STRATEGIES else None
        (line,) = ax.plot(
            [p.cost for p in r.curve],
            [p.f1 for p in r.curve],
            linestyle=styles.get(r.mode, "-"),
            color=color,
            marker=".",
            markersize=3,
            linewidth=1.6 if r.mode == "review" else 1.2,
            label=f"{r.strategy}+{r.mode}",
        )
        reached = [p for p in r.curve if p.cost == r.cost_to_95]
        if reached:
            ax.plot([reached[0].cost], [reached[0].f1], "o", color=line.get_color(), markersize=5)
    if results:
        ax.axhline(
            TARGET_SHARE * results[0].full_data_f1,
            color="grey",
            linestyle=":",
            linewidth=1,
            label="95 % of full-data F1",
        )
    ax.set_xscale("log")
    ax.set_xlabel("annotation cost")
    ax.set_ylabel("test F1")
    ax.set_title(title or (results[0].learner if results else ""), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def plot_curves(results: Sequence[SimulationResult], path: str | Path, title: str = "") -> None:
    """Write :func:`draw_curves` of ``results`` to a PNG (matplotlib, the ``plot`` extra).

    Raises
    ------
    SimulationError
        matplotlib is not installed.
    """
    check_plotting()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, 4.8), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    draw_curves(ax, results, title)
    if results:
        c = results[0].costs
        accepted = f", accepted suggestion {c.accept:g}" if c.accept is not None else ""
        ax.set_xlabel(
            f"annotation cost (full label {c.full:g}, candidate set {c.partial:g}, skipped token {c.skip:g}{accepted})"
        )
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
