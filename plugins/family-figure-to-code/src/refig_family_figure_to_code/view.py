"""The figure-to-code panel of the HTML task pages (``refig view``, ``refig report --html``),
given to the viewer by the family's record (``viewer``). The page itself shows the
reference figure beside the program's image, the status and the downloads; this panel adds the
program, what its interpreter printed, the typed failure and the code metrics, all leading the
page (``lead``): the viewer folds a long program so the output and metrics stay in reach; then
the edit probes when they were measured (each one's verdict, the image before and after)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from refig_toolkit_analysis import format_number, probe_blocks

FAMILY = "figure-to-code"
TITLE = "Program"
KEY_METRICS = (
    ("code", "execution", "ran"),
    ("code", "ssim_weighted", "SSIM (weighted)"),
    ("code", "crystalbleu_sentence", "CrystalBLEU (program)"),
    ("code", "fcf", "FCF"),
)
#: Characters of a program or an interpreter's output shown inline (the file is a download).
MAX_CODE = 60_000
#: The `code` metric's values the panel lists, in this order, with their labels.
SHOWN = (("execution", "ran"), ("psnr", "PSNR (dB)"), ("ssim", "SSIM"), ("lpips", "LPIPS"),
         ("ciede2000", "mean ΔE00"), ("crystalbleu_sentence", "CrystalBLEU (program)"),
         ("ast", "AST similarity"), ("api_f1", "plotting-API F1"),
         ("codebertscore_f1", "CodeBERTScore F1"), ("fcf", "FCF (1024 px)"), ("tokens", "tokens"),
         ("reference_tokens", "reference tokens"), ("smuggling", "raster smuggling"))


def _shown(value: Any) -> str:
    """A metric value as the panel prints it, with why it is missing when the metric said."""
    if value.value is not None:
        return format_number(value.value)
    why = value.detail.get("not_meaningful") or value.detail.get("reason")
    return f"not meaningful: {why}" if value.detail.get("not_meaningful") else \
        f"— ({why})" if why else "—"


def _metrics(found: Any) -> list[list[str]]:
    rows = []
    for name, label in SHOWN:
        value = found.metrics.get(("code", name))
        if value is None:
            continue
        text = _shown(value)
        reasons = value.detail.get("reasons") if name == "smuggling" else None
        rows.append([label, f"{text} ({', '.join(reasons)})" if reasons else text])
    return rows


def panel(found: Any) -> list[dict[str, Any]]:
    """Blocks: the program, the interpreter's output, the typed failure, the code metrics; the
    edit probes."""
    outcome = found.outcome
    program = found.read_text(outcome.attempt.outputs.get("program"))
    blocks: list[dict[str, Any]] = []
    if outcome.gate_reason is not None:
        blocks.append({"kind": "pairs", "title": "Execution failed", "rows": [
            ["failure", outcome.gate_reason], ["message", outcome.gate_detail or "—"]]})
    rows = _metrics(found)
    if rows:
        blocks.append({"kind": "pairs", "title": "Code metrics", "rows": rows})
    blocks.append({"kind": "code", "title": "Program", "text": program[:MAX_CODE]}
                  if program is not None else {"kind": "note", "text": "no program stored"})
    output = found.read_text(found.log_sha256)
    if output is not None:
        blocks.append({"kind": "code", "title": "Interpreter output (stdout and stderr)",
                       "text": output[:MAX_CODE]})
    elif found.pages:
        blocks.append({"kind": "note", "text": "the interpreter printed nothing"})
    probes = probe_blocks(found.metrics.get(("edit-probes", "probe_score")))
    return [{**block, "lead": True} for block in blocks] + probes


#: What the viewer's entry point loads: the attributes of its ``FamilyView``.
VIEW = SimpleNamespace(family=FAMILY, key_metrics=KEY_METRICS, title=TITLE, panel=panel)
