"""What the figure-to-code family reads from a program without running it: its language,
length, syntax tree size, plotting calls and raster-smuggling findings."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from refig_metric_code.calls import plotting_calls
from refig_metric_code.smuggling import detect
from refig_metric_code.syntax_tree import ParseFailure, syntax_tree
from refig_metric_code.tokens import token_count

from refig_family_figure_to_code.languages import Language


class ProgramStructure(BaseModel):
    """The static facts of one program (``Inspection.structure`` of this family)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    language: str
    tokens: int
    parses: bool
    ast_size: int
    ast_depth: int
    plotting_calls: tuple[str, ...]
    smuggling: tuple[str, ...]


def read_structure(source: str, language: Language, figure_names: tuple[str, ...] = ()
                   ) -> ProgramStructure:
    """The :class:`ProgramStructure` of ``source``."""
    try:
        tree = syntax_tree(source, language)
        parses, size, depth = True, tree.size, tree.depth
    except ParseFailure:
        parses, size, depth = False, 0, 0
    return ProgramStructure(
        language=language.value, tokens=token_count(source, language), parses=parses,
        ast_size=size, ast_depth=depth,
        plotting_calls=tuple(sorted(plotting_calls(source, language))),
        smuggling=detect(source, language, figure_names=figure_names).reasons,
    )
