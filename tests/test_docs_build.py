"""docs/build.md and its drawings: the drawings parse, carry what the guide says they show, and
every link of the guide reaches a file; the guide says what is measured and what is not."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BUILD = DOCS / "build.md"
SVG = "{http://www.w3.org/2000/svg}"

# Each drawing and the labels the guide relies on it to show.
DRAWINGS = {
    "drawings/box-layout.svg": (
        "not to scale", "none is measured", "exit slot", "break-beam", "launcher button", "rubber roller",
        "motor", "original PCB: remove", "speaker: remove", "battery box, 3 × C (4.5 V)",
        "ON/OFF switch (bottom)", "lid switch", "Raspberry Pi", "motor driver board",
    ),
    "drawings/exit-slot.svg": (
        "not to scale", "estimate", "emitter", "receiver (open collector)", "across the whole width",
        "roller", "less than a card length (87 mm)", "jam_ms", "3 mm holes", "3V3 only",
    ),
}


def svg_texts(path: Path) -> str:
    root = ET.fromstring(path.read_text(encoding="utf-8"))
    assert root.tag == f"{SVG}svg"
    assert root.get("viewBox"), path
    return " ".join(element.text or "" for element in root.iter(f"{SVG}text"))


@pytest.mark.parametrize("name", sorted(DRAWINGS))
def test_each_drawing_parses_and_shows_its_parts(name):
    texts = svg_texts(DOCS / name)
    for label in DRAWINGS[name]:
        assert label in texts, (name, label)


def test_every_shape_lies_inside_its_drawing():
    """A label or part drawn past the edge is cut off in every viewer."""
    for name in DRAWINGS:
        root = ET.fromstring((DOCS / name).read_text(encoding="utf-8"))
        width, height = float(root.get("width")), float(root.get("height"))
        for element in root.iter():
            for attr, limit in (("x", width), ("cx", width), ("y", height), ("cy", height)):
                if element.get(attr) is not None:
                    assert 0 <= float(element.get(attr)) <= limit, (name, element.tag, element.attrib)


def links(markdown: str) -> list[str]:
    return [target.split("#")[0] for target in re.findall(r"\]\(([^)\s]+)\)", markdown)
            if not target.startswith(("http://", "https://"))]


def test_every_link_of_the_guide_reaches_a_file_and_both_drawings_are_linked():
    text = BUILD.read_text(encoding="utf-8")
    targets = links(text)
    for name in DRAWINGS:
        assert name in targets, name
    for target in targets:
        assert (BUILD.parent / target).resolve().exists(), target


def test_the_guide_says_what_is_measured_and_what_is_not():
    text = BUILD.read_text(encoding="utf-8")
    assert "Nothing in this guide has been measured on a real box" in text
    for mark in ("[public]", "[estimate]", "[measure]"):
        assert text.count(mark) >= 2, mark
    # Each row of the table of known facts names where it comes from.
    rows = [line for line in text.split("## What is known about the original")[1].split("\n## ")[0].splitlines()
            if line.startswith("| ") and not line.startswith("| What |")]
    assert len(rows) >= 10
    for row in rows:
        assert "[public]" in row or "[estimate]" in row, row


def test_the_guide_covers_what_the_issue_asks():
    text = BUILD.read_text(encoding="utf-8")
    for phrase in ("three C cells", "4.5 V", "seed 001", "Motor current", "Battery box", "Button", "Lid switch",
                   "Exit slot", "What to remove, what to keep", "The break-beam across the exit slot",
                   "Which break-beam parts fit", "stall current", "DRV8833"):
        assert phrase in text, phrase
