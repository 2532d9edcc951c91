"""Which comparison to show next: a balanced, seeded plan, walked per annotator without repeats.

The plan lists every comparable item (a task and an unordered pair of configurations that both
have a showable rendering of it) exactly once, ordered in rounds: each round gives every
configuration pair that has items left one more, each pair taking the source figure it has been
compared on least (then the figure and the task least used overall; seeded ties). So any prefix of
the plan compares all pairs equally often (within one) over as many source figures as possible.

Each annotator walks the plan in order, skipping the items they already voted on (stored active
votes, any session: an annotator never sees the same pair of one task twice) and preferring
items that fewer than ``replication`` other annotators have voted on or are looking at: with the
default of 2, a second annotator follows the first's trail (items seen twice give the agreement
statistics) and a third moves on to new items. Left and right are counterbalanced per item.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TypeVar

from refig.models import Preference

from refig_toolkit_analysis.annotation.candidates import Candidates, Side
from refig_toolkit_analysis.annotation.votes import ItemKey, vote_key

DEFAULT_REPLICATION = 2
T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Item:
    """One planned comparison; ``first`` and ``second`` are sorted by configuration id."""

    task_id: str
    cluster: str
    source_sha256: str | None
    first: Side
    second: Side

    @property
    def key(self) -> ItemKey:
        return self.task_id, self.first.config_id, self.second.config_id


@dataclass(frozen=True)
class Assignment:
    """An item as one annotator is shown it: which side is left (A) and which right (B)."""

    item: Item
    left: Side
    right: Side


@dataclass(frozen=True)
class Plan:
    """Every comparable item once, in balanced order."""

    items: tuple[Item, ...]
    seed: int
    index: dict[ItemKey, int] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        self.index.update({item.key: i for i, item in enumerate(self.items)})

    def pairs(self) -> Counter[tuple[str, str]]:
        """How many tasks each configuration pair is planned on."""
        return Counter((item.first.config_id, item.second.config_id) for item in self.items)

    def describe(self) -> str:
        """One line for the terminal: items, pairs, tasks, figures."""
        pairs = self.pairs()
        tasks = {item.task_id for item in self.items}
        clusters = {item.cluster for item in self.items}
        spread = f"{min(pairs.values())}–{max(pairs.values())}" if pairs else "0"
        return (
            f"{len(self.items)} comparisons: {len(pairs)} configuration pairs, each on "
            f"{spread} tasks, over {len(tasks)} tasks from {len(clusters)} source figures"
        )


def balanced_rounds(pools: Mapping[Hashable, list[T]], rng: random.Random,
                    cluster: Callable[[T], str], task: Callable[[T], str]) -> list[T]:
    """Order the pools' items in rounds: each round gives every pool with items left one more,
    each taking the cluster it has used least, then the cluster and the task least used overall
    (ties by the pools' seeded order)."""
    for pool in pools.values():
        rng.shuffle(pool)  # seeded tie-breaks between equally used tasks
    task_use: Counter[str] = Counter()
    cluster_use: Counter[str] = Counter()
    pool_cluster_use: dict[Hashable, Counter[str]] = defaultdict(Counter)
    order: list[T] = []
    names = sorted(pools)  # type: ignore[type-var]
    while True:
        round_pools = [p for p in names if pools[p]]
        if not round_pools:
            break
        rng.shuffle(round_pools)
        for name in round_pools:
            pool, used = pools[name], pool_cluster_use[name]
            best = min(range(len(pool)), key=lambda i: (
                used[cluster(pool[i])], cluster_use[cluster(pool[i])], task_use[task(pool[i])], i))
            item = pool.pop(best)
            used[cluster(item)] += 1
            cluster_use[cluster(item)] += 1
            task_use[task(item)] += 1
            order.append(item)
    return order


def build_plan(candidates: Candidates, seed: int = 0) -> Plan:
    """Order every comparable item in balanced rounds over configuration pairs (see the module)."""
    pools: dict[Hashable, list[Item]] = defaultdict(list)
    for task_id in sorted(candidates.sides):
        sides = sorted(candidates.sides[task_id], key=lambda s: s.config_id)
        for first, second in combinations(sides, 2):
            pools[(first.config_id, second.config_id)].append(
                Item(
                    task_id,
                    candidates.clusters.get(task_id, task_id),
                    candidates.sources.get(task_id),
                    first,
                    second,
                )
            )
    order = balanced_rounds(pools, random.Random(seed), lambda i: i.cluster, lambda i: i.task_id)
    return Plan(tuple(order), seed)


def first_open(order: Sequence[T], key: Callable[[T], K], seen: set[K], load: Counter[K],
               replication: int) -> T | None:
    """The first item not in ``seen`` whose ``load`` (others' answers and screens) is below
    ``replication``; when every such item is taken, the least-loaded one (None: all seen)."""
    best: tuple[int, int] | None = None
    chosen: T | None = None
    for index, item in enumerate(order):
        k = key(item)
        if k in seen:
            continue
        if load[k] < replication:
            return item
        if best is None or (load[k], index) < best:
            best, chosen = (load[k], index), item
    return chosen


def _coin(seed: int, annotator: str, key: ItemKey) -> bool:
    """A seeded fair coin per annotator and item (stable across restarts)."""
    digest = hashlib.sha256("\0".join((str(seed), annotator, *key)).encode()).digest()
    return digest[0] & 1 == 1


def orient(item: Item, lefts: Iterable[str], annotator: str, seed: int) -> Assignment:
    """Put on the left the side shown left less often so far (``lefts``: the configuration
    shown left at each earlier showing of this item), else toss a seeded coin."""
    first_left = second_left = 0
    for config_id in lefts:
        if config_id == item.first.config_id:
            first_left += 1
        else:
            second_left += 1
    if first_left == second_left:
        first_on_left = _coin(seed, annotator, item.key)
    else:
        first_on_left = first_left < second_left
    if first_on_left:
        return Assignment(item, item.first, item.second)
    return Assignment(item, item.second, item.first)


@dataclass(frozen=True)
class Progress:
    """An annotator's progress through the plan, and the run's vote count."""

    done: int
    planned: int
    votes: int


def progress(plan: Plan, annotator: str, votes: Iterable[Preference]) -> Progress:
    """Items of the plan this annotator voted on (active votes), out of all planned."""
    active = [v for v in votes if v.active]
    mine = {vote_key(v) for v in active if v.annotator == annotator}
    return Progress(len(mine & plan.index.keys()), len(plan.items), len(active))


def next_assignment(
    plan: Plan,
    annotator: str,
    votes: Iterable[Preference],
    pending: Mapping[str, Assignment] | None = None,
    *,
    replication: int = DEFAULT_REPLICATION,
) -> Assignment | None:
    """The next item for ``annotator``, or None when they have voted on every planned item.

    ``votes`` are the run's stored votes (retracted ones count only for left/right balance);
    ``pending`` maps other annotators to the pair on their screen now. The first item in plan
    order that the annotator has not voted on and that fewer than ``replication`` others have
    voted on or are looking at; when every such item is taken, the least-covered one.
    """
    keyed = [(vote_key(v), v) for v in votes]
    seen = {key for key, v in keyed if v.active and v.annotator == annotator}
    load: Counter[ItemKey] = Counter(
        key for key, v in keyed if v.active and v.annotator != annotator
    )
    others = [a for who, a in (pending or {}).items() if who != annotator]
    load.update(a.item.key for a in others)
    chosen = first_open(plan.items, lambda item: item.key, seen, load, replication)
    if chosen is None:
        return None
    lefts = [v.left for key, v in keyed if key == chosen.key]
    lefts += [a.left.config_id for a in others if a.item.key == chosen.key]
    return orient(chosen, lefts, annotator, plan.seed)
