"""refig's driver for one Python program: Agg backend, parse first, save the current figure.

Exit codes: 0 ran, 3 syntax error, 4 runtime error. Arguments: program, image out, width px,
height px, dpi.
"""

import sys
import traceback

program, out, width, height, dpi = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:6])
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.show = lambda *args, **kwargs: None
plt.rcParams["figure.figsize"] = (width / dpi, height / dpi)
plt.rcParams["figure.dpi"] = dpi
plt.rcParams["savefig.dpi"] = dpi
with open(program, encoding="utf-8", errors="replace") as handle:
    source = handle.read()
try:
    code = compile(source, program, "exec")
except (SyntaxError, ValueError) as exc:
    sys.stderr.write("".join(traceback.format_exception_only(type(exc), exc)))
    sys.exit(3)
sys.argv = [program]
try:
    exec(code, {"__name__": "__main__", "__file__": program, "__builtins__": __builtins__})
except SystemExit as exc:
    if exc.code not in (None, 0):
        print(f"the program exited with status {exc.code}", file=sys.stderr)
        sys.exit(4)
except BaseException:
    traceback.print_exc()
    sys.exit(4)
if plt.get_fignums():
    plt.gcf().savefig(out, dpi=dpi)
