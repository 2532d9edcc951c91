"""Dollar cost of model calls: litellm's price map, under a user override file.

The map is read as JSON from the installed litellm package (the harness packages pin it), without
importing litellm itself. Models the map does not know are priced from an override file, the first
of: the ``prices`` option, ``$REFIG_PRICES``, ``<refig home>/prices.json``. It maps a model name to
litellm's per-token keys::

    {"my-model": {"input_cost_per_token": 1e-06, "output_cost_per_token": 4e-06,
                  "cache_read_input_token_cost": 1e-07,
                  "cache_creation_input_token_cost": 1.25e-06}}

An unknown model leaves the cost unknown (None), never zero.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError
from refig.errors import RefigError, problems
from refig.home import refig_home

from refig_toolkit_agent.gateway.usage import Tokens

LITELLM_MAP = "model_prices_and_context_window_backup.json"
PROVIDER_PREFIXES = ("anthropic/", "openai/", "dashscope/", "openrouter/", "azure/", "vertex_ai/")


class Price(BaseModel):
    """Dollars per token of one model (litellm's key names)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    input_cost_per_token: float
    output_cost_per_token: float
    cache_read_input_token_cost: float | None = None
    cache_creation_input_token_cost: float | None = None

    def cost(self, tokens: Tokens) -> float:
        """Dollars for one call's tokens; cache prices default to the input price."""
        fresh = max(tokens.input - tokens.cached - tokens.cache_write, 0)
        read = self.cache_read_input_token_cost
        write = self.cache_creation_input_token_cost
        return (
            fresh * self.input_cost_per_token
            + tokens.cached * (self.input_cost_per_token if read is None else read)
            + tokens.cache_write * (self.input_cost_per_token if write is None else write)
            + tokens.output * self.output_cost_per_token
        )


@functools.cache
def litellm_prices() -> dict[str, Price]:
    """litellm's price map, or an empty map when litellm is not installed."""
    # find_spec locates the package without running its __init__, which would import all of
    # litellm and try to download a fresh price map.
    spec = importlib.util.find_spec("litellm")
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    try:
        text = next(Path(p) / LITELLM_MAP for p in locations
                    if (Path(p) / LITELLM_MAP).exists()).read_text()
    except StopIteration:
        return {}
    prices: dict[str, Price] = {}
    for name, entry in json.loads(text).items():
        if isinstance(entry, dict):
            try:
                prices[name] = Price.model_validate(entry)
            except ValidationError:
                continue
    return prices


def override_path(option: str | Path | None = None) -> Path | None:
    """The override file in effect, if any exists."""
    if option:
        return Path(option)
    if env := os.environ.get("REFIG_PRICES"):
        return Path(env)
    default = refig_home() / "prices.json"
    return default if default.exists() else None


def load_overrides(path: Path | None) -> dict[str, Price]:
    """Parse an override file; errors name the file and the entry."""
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise RefigError(f"cannot read the price override file: {exc}", path=path,
                         fix="make it a JSON object of model -> litellm price keys") from exc
    if not isinstance(data, dict):
        raise RefigError("the price override file must hold a JSON object", path=path,
                         fix='e.g. {"my-model": {"input_cost_per_token": 1e-06, '
                             '"output_cost_per_token": 4e-06}}')
    prices: dict[str, Price] = {}
    for name, entry in data.items():
        try:
            prices[name] = Price.model_validate(entry)
        except ValidationError as exc:
            raise RefigError(f"bad price entry for {name!r}: {problems(exc)}", path=path,
                             fix="give input_cost_per_token and output_cost_per_token") from exc
    return prices


class PriceTable:
    """Looks a model's price up in the overrides first, then in litellm's map."""

    def __init__(self, overrides: dict[str, Price] | None = None,
                 base: dict[str, Price] | None = None):
        self.overrides = overrides or {}
        self.base = litellm_prices() if base is None else base

    @classmethod
    def load(cls, option: str | Path | None = None) -> PriceTable:
        return cls(load_overrides(override_path(option)))

    def price(self, model: str | None) -> Price | None:
        """The price of ``model``, trying it bare and with common provider prefixes."""
        if not model:
            return None
        bare = model.split("/", 1)[1] if model.startswith(PROVIDER_PREFIXES) else model
        for table in (self.overrides, self.base):
            for name in (model, bare, *(p + bare for p in PROVIDER_PREFIXES)):
                if name in table:
                    return table[name]
        return None

    def cost(self, model: str | None, tokens: Tokens) -> float | None:
        price = self.price(model)
        return None if price is None else price.cost(tokens)
