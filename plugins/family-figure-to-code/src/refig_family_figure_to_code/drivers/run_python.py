"""refig's driver for one Python program: Agg backend, parse first, save the current figure.

``run`` returns the exit status: 0 ran, 3 syntax error, 4 runtime error. As a script its
arguments are: program, image out, width px, height px, dpi. An empty image out runs the
program as it is (a capture protocol that saves the figure itself, see ``capture.py``): no size
is set and nothing is saved. The warm server imports it.
"""

import sys
import traceback

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

plt.show = lambda *args, **kwargs: None


def run(program: str, out: str, width: float, height: float, dpi: float) -> int:
    """Run ``program`` in the current directory and save its figure to ``out``."""
    plt.close("all")
    plt.rcdefaults()
    if out:
        plt.rcParams["figure.figsize"] = (width / dpi, height / dpi)
        plt.rcParams["figure.dpi"] = dpi
        plt.rcParams["savefig.dpi"] = dpi
    with open(program, encoding="utf-8", errors="replace") as handle:
        source = handle.read()
    try:
        code = compile(source, program, "exec")
    except (SyntaxError, ValueError) as exc:
        sys.stderr.write("".join(traceback.format_exception_only(type(exc), exc)))
        return 3
    sys.argv = [program]
    try:
        exec(code, {"__name__": "__main__", "__file__": program, "__builtins__": __builtins__})
    except SystemExit as exc:
        if exc.code not in (None, 0):
            print(f"the program exited with status {exc.code}", file=sys.stderr)
            return 4
    except BaseException:
        traceback.print_exc()
        return 4
    if out and plt.get_fignums():
        plt.gcf().savefig(out, dpi=dpi)
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1], sys.argv[2], *map(float, sys.argv[3:6])))
