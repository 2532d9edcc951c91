"""Refuse names refig cannot select (spaces, colons, upper case)."""

import re
import sys

NAME = "{{ cookiecutter.name }}"
if not re.fullmatch(r"[a-z][a-z0-9-]*", NAME):
    sys.exit(f"name {NAME!r} must be lower case letters, digits and dashes, starting with a letter")
