"""PPTArena's five edit categories and sixteen operation types (the names tables report by)."""

from __future__ import annotations

CATEGORIES = ("Content", "Layout", "Styling", "Interactivity", "Structure")

OPERATIONS = (
    "text_typography", "charts", "images", "theme_background", "alignment_zorder",
    "slides_sections_footers", "tables", "shapes", "smartart", "layout_placeholders",
    "accessibility", "transitions", "hyperlinks", "master", "audio_video", "animations",
)
