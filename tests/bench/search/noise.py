"""Queries that can match nothing, for `tests.bench.search`: do they answer nothing?

Two sets, neither the one `manage.py calibrate_search_floor` measures with (other seeds,
other words): 100 nonsense queries (search/retrieval/calibrate.py's made-up words, every word absent
from the corpus) and 100 ordinary words that no document holds (`ABSENT_WORDS`, those the
corpus does hold left out). Each runs in every mode; an answer with any result is noise.
Beside them, what unrelated text scores with the vectors alone (each query's nearest
chunk), without the shared-word rule and with it: why the `hashing` provider needs it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

COUNT = 100
SEED = 2512  # calibrate_search_floor uses 25
ABSENT_WORDS = tuple(
    (  # noqa: SIM905
        "acorn anchovy antelope apricot badger bagel baboon barnacle beetle bison blackberry "
        "bobcat bonsai brownie bumblebee burrito camel canary cantaloupe caribou cashew "
        "catfish cheetah chickpea chinchilla cicada clam cobra cougar coyote crayfish "
        "crocodile cucumber daffodil dingo donkey dumpling eel elk falcon ferret fig firefly "
        "flounder gecko gerbil goldfish gooseberry grasshopper grizzly guacamole guava "
        "hamster hazelnut heron honeydew hyena jackal jaguar kiwi kumquat lasagna leopard "
        "lilac llama lynx macaw mackerel mango manatee mantis marmot mink moose mosquito "
        "muffin nectarine nightingale octopus okra opossum oyster panda panther parsnip "
        "peanut pheasant piglet plum pretzel puffin quail radish rhubarb sardine scallop "
        "skunk sloth snail squid stork swan tadpole tapir termite turnip vulture weasel "
        "wombat yak zebra lentil shrimp trout walnut"
    ).split()
)


@dataclass
class Noise:
    queries: dict[str, list[str]]  # kind: the queries
    answered: dict[tuple[str, str], int] = field(default_factory=dict)  # (kind, mode): count
    examples: dict[tuple[str, str], str] = field(default_factory=dict)  # a query that did
    nearest: dict[str, float | None] = field(default_factory=dict)  # rule: highest similarity
    floor: float = 0.0


def measure(owner_id: int, modes: tuple[str, ...]) -> Noise:
    """Every query of both sets in every mode. Django must be set up."""
    from search.retrieval import calibrate, floors
    from search.retrieval.query import search

    noise = Noise(
        queries={
            "nonsense": calibrate.made_up_queries(COUNT, SEED),
            "absent words": calibrate.absent_words(ABSENT_WORDS)[:COUNT],
        },
        floor=floors.floor(),
    )
    for kind, queries in noise.queries.items():
        for mode in modes:
            answering = [q for q in queries if search(owner_id=owner_id, q=q, mode=mode).results]
            noise.answered[(kind, mode)] = len(answering)
            if answering:
                noise.examples[(kind, mode)] = answering[0]
    every = [q for queries in noise.queries.values() for q in queries]
    for label, gate in (("vectors alone", False), ("sharing a word", True)):
        noise.nearest[label] = calibrate.measure(every, shared_word=gate).highest
    return noise


def report(noise: Noise) -> list[str]:
    sizes = ", ".join(f"{len(q)} {kind}" for kind, q in noise.queries.items())
    nearest = "; ".join(
        f"{label}: {'none' if value is None else f'{value:.3f}'}"
        for label, value in noise.nearest.items()
    )
    lines = [
        "",
        f"**Noise.** Queries that can match nothing ({sizes}), in every mode: how many "
        f"answered anything (a vector-only hit must be more similar than {noise.floor:.2f}, "
        "and with the `hashing` vectors share a word with the query). The highest similarity "
        f"of such a query's nearest chunk, {nearest}.",
        "",
        "| queries | mode | answered | e.g. |",
        "|---|---|---|---|",
    ]
    for (kind, mode), count in noise.answered.items():
        example = noise.examples.get((kind, mode), "")
        lines.append(f"| {kind} | {mode} | {count} | {example} |")
    return lines
