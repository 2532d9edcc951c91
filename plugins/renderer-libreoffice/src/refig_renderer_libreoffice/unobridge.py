"""A warm LibreOffice driven over UNO: one office process converts file after file to PDF.

Run by the system Python that has LibreOffice's ``uno`` module (``python3-uno``), not by refig's
interpreter, so it uses only the standard library and ``uno``. It starts ``soffice`` (the
command after ``--``) listening on a private pipe, connects, prints ``{"ready": true}``, then for
each JSON line on stdin (``{"source": ..., "pdf": ..., "hidden": bool}``) loads the deck (macros
never run, links never update), exports it and answers one JSON line: ``{"ok": true}`` or
``{"error": ...}``. When the office dies it answers ``{"error": ..., "dead": true}`` and exits; at
end of input it closes the office. The owner kills the whole process group on a timeout.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time

import uno  # type: ignore[import-not-found]
from com.sun.star.beans import PropertyValue  # type: ignore[import-not-found]
from com.sun.star.connection import NoConnectException  # type: ignore[import-not-found]
from com.sun.star.lang import DisposedException  # type: ignore[import-not-found]
from com.sun.star.uno import RuntimeException  # type: ignore[import-not-found]

_START_TIMEOUT = 60.0
_STOP_TIMEOUT = 10.0
NEVER_EXECUTE = 0  # com.sun.star.document.MacroExecMode.NEVER_EXECUTE
NO_UPDATE = 0  # com.sun.star.document.UpdateDocMode.NO_UPDATE


def _props(**values: object) -> tuple[PropertyValue, ...]:
    return tuple(PropertyValue(Name=name, Value=value) for name, value in values.items())


def _connect(pipe: str, office: subprocess.Popen[bytes]) -> object:
    """The office's desktop, once its pipe accepts connections (or SystemExit if it died)."""
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext(
        "com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + _START_TIMEOUT
    while True:
        try:
            context = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
            return context.ServiceManager.createInstanceWithContext(
                "com.sun.star.frame.Desktop", context)
        except NoConnectException:
            if office.poll() is not None or time.monotonic() > deadline:
                _answer(error=f"LibreOffice did not start (exit code {office.poll()})", dead=True)
                raise SystemExit(3) from None
            time.sleep(0.05)


def _answer(**fields: object) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def _convert(desktop: object, source: str, pdf: str, hidden: bool) -> None:
    """Load ``source`` hidden and read-only, export it to ``pdf``, close it."""
    document = desktop.loadComponentFromURL(  # type: ignore[attr-defined]
        uno.systemPathToFileUrl(source), "_blank", 0,
        _props(Hidden=True, ReadOnly=True, MacroExecutionMode=NEVER_EXECUTE,
               UpdateDocMode=NO_UPDATE))
    if document is None:
        raise ValueError("source file could not be loaded")
    try:
        data = uno.Any("[]com.sun.star.beans.PropertyValue", _props(ExportHiddenSlides=hidden))
        uno.invoke(document, "storeToURL", (uno.systemPathToFileUrl(pdf),
                                            _props(FilterName="impress_pdf_Export",
                                                   FilterData=data)))
    finally:
        document.close(True)


def main(pipe: str, command: list[str]) -> int:
    office = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    desktop = _connect(pipe, office)
    _answer(ready=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            _convert(desktop, request["source"], request["pdf"], bool(request["hidden"]))
        except (DisposedException, RuntimeException) as exc:
            if office.poll() is not None or isinstance(exc, DisposedException):
                _answer(error=f"LibreOffice died: {exc.Message or type(exc).__name__}", dead=True)
                return 4
            _answer(error=str(exc.Message or exc))
        except Exception as exc:  # a deck LibreOffice refuses: its own verdict, office still up
            _answer(error=str(getattr(exc, "Message", "") or exc))
        else:
            _answer(ok=True)
    with contextlib.suppress(Exception):  # already gone: the owner kills the group anyway
        desktop.terminate()  # type: ignore[attr-defined]
    # Waited for, so its CPU time reaches the owner's accounting of ended children.
    with contextlib.suppress(subprocess.TimeoutExpired):
        office.wait(timeout=_STOP_TIMEOUT)
    return 0


if __name__ == "__main__":
    arguments = sys.argv[1:]
    sys.exit(main(arguments[0], arguments[2:]))
