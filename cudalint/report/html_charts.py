"""The report's charts: matplotlib figures rendered to inline SVG (text drawn as paths, so the file needs
no fonts and no network). Each function returns the `<svg>` element as markup.

matplotlib is the `report` extra; importing this module without it raises ImportError.
"""

from __future__ import annotations

import io
import math
import re

import matplotlib
from markupsafe import Markup, escape
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator

ACCEPTED, REJECTED = "#4c9a6a", "#c8553d"
PALETTE = ("#3b6ea5", "#c8553d", "#4c9a6a", "#d89b2b", "#7a5195", "#2a9d8f", "#8c6d46", "#bc5090",
           "#58508d", "#6b8e23")
_WIDTH = 4.9  # inches: two charts side by side on a wide screen
_PROLOGUE = re.compile(r"\A.*?(?=<svg)", re.S)  # the XML declaration and DOCTYPE: not for inline SVG


def _svg(figure: Figure, chart_id: str, title: str) -> Markup:
    """The figure as an `<svg>` element labelled `title`; `chart_id` salts its internal ids so that two
    charts of one page never share one."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": chart_id, "svg.fonttype": "path"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    svg = _PROLOGUE.sub("", buffer.getvalue(), count=1)
    return Markup(svg.replace("<svg ", f'<svg role="img" aria-label="{escape(title)}" ', 1))


def _figure(rows: int = 0) -> tuple[Figure, object]:
    """A figure of the report's width; `rows` labels on the vertical axis set its height."""
    figure = Figure(figsize=(_WIDTH, max(2.4, 0.28 * rows + 1.0)))
    axes = figure.subplots()
    axes.spines[["top", "right"]].set_visible(False)
    return figure, axes


def stacked_bars(chart_id: str, labels: list[str], series: dict[str, list[int]], title: str,
                 colors: tuple[str, ...] = PALETTE, xlabel: str = "files") -> Markup:
    """Horizontal bars, one per label (top to bottom in order), each stacking the series' values."""
    figure, axes = _figure(len(labels))
    positions = list(range(len(labels)))[::-1]
    left = [0] * len(labels)
    for (name, values), color in zip(series.items(), colors):
        axes.barh(positions, values, left=left, color=color, label=name, height=0.7)
        left = [a + b for a, b in zip(left, values)]
    axes.set_yticks(positions, labels, fontsize=9)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel(xlabel)
    if len(series) > 1:  # in a row between the title and the bars, where it hides none of them
        axes.legend(fontsize=8, frameon=False, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=len(series),
                    borderaxespad=0.2)
    axes.set_title(title, fontsize=10, loc="left", pad=20 if len(series) > 1 else 6)
    return _svg(figure, chart_id, title)


def trend(chart_id: str, runs: list[str], series: dict[str, list[int]], title: str) -> Markup:
    """One line per series over the runs (in the order given): findings by rule over time."""
    figure, axes = _figure()
    figure.set_size_inches(_WIDTH, 3.2)
    positions = list(range(len(runs)))
    for index, (name, values) in enumerate(series.items()):
        axes.plot(positions, values, marker="o", label=name, color=PALETTE[index % len(PALETTE)],
                  linestyle="-" if index < len(PALETTE) else "--")
    axes.set_xticks(positions, runs, fontsize=8, rotation=15, ha="right")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylabel("findings")
    axes.set_title(title, fontsize=10, loc="left")
    axes.legend(fontsize=7, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return _svg(figure, chart_id, title)


def speedup_histogram(chart_id: str, speedups: list[float], p: float, title: str) -> Markup:
    """The distribution of speedups over log-spaced bins, with the threshold p marked."""
    figure, axes = _figure()
    low, high = min(speedups + [p]), max(speedups + [p])
    low, high = math.log10(low) - 0.1, math.log10(high) + 0.1
    bins = [10 ** (low + (high - low) * i / 24) for i in range(25)]
    axes.hist(speedups, bins=bins, color=PALETTE[0], edgecolor="white")
    axes.set_xscale("log")
    axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}x"))
    axes.axvline(p, color=REJECTED, linestyle="--", linewidth=1)
    axes.annotate(f"p = {p:g}", (p, 1), xycoords=("data", "axes fraction"), xytext=(3, -10),
                  textcoords="offset points", fontsize=8, color=REJECTED)
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("speedup over the eager reference (log scale)")
    axes.set_ylabel("correct candidates")
    axes.set_title(title, fontsize=10, loc="left")
    return _svg(figure, chart_id, title)


def fast_p_curve(chart_id: str, thresholds: list[float], curves: dict[str, list[float]], p: float,
                 title: str) -> Markup:
    """fast_p as a function of the threshold p (log scale), one curve per definition, p marked."""
    figure, axes = _figure()
    for index, (name, values) in enumerate(curves.items()):
        axes.step(thresholds, values, where="post", label=name, color=PALETTE[index])
    axes.set_xscale("log")
    axes.xaxis.set_major_locator(LogLocator(base=10))
    axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axes.axvline(p, color=REJECTED, linestyle="--", linewidth=1)
    axes.set_ylim(0, 1.02)
    axes.set_xlabel("threshold p: speedup over the eager reference (log scale)")
    axes.set_ylabel("fast_p")
    axes.set_title(title, fontsize=10, loc="left")
    axes.legend(fontsize=8, frameon=False)
    return _svg(figure, chart_id, title)


__all__ = ["ACCEPTED", "REJECTED", "fast_p_curve", "speedup_histogram", "stacked_bars", "trend"]
