"""The husbandry skills (``skills/farm_breed.py``'s farm.breed, ``skills/gather.py``'s gather.wool)
start the bot's actions as the catalogue names them, from what the view shows (FakeLink)."""

from __future__ import annotations

import skills
from pepa.testing import FakeLink, entity, view
from pepa.world.view import WorldView


def world(items: dict[str, int], *animals: tuple[str, float]) -> WorldView:
    return view(
        items=items,
        entities=[entity(i + 10, name, d, kind="animal") for i, (name, d) in enumerate(animals)],
    )


def test_farm_breed_feeds_the_animals_whose_food_is_held() -> None:
    breed = skills.get("farm.breed")
    link = FakeLink()

    breed.run(link, {}, world({"wheat": 4}, ("cow", 5.0), ("cow", 7.0), ("pig", 3.0)))

    assert link.last().name == "breed"
    assert link.last().args == {"names": ["cow", "sheep"], "radius": 16.0}


def test_farm_breed_needs_food_and_looks_for_a_pair_it_cannot_see() -> None:
    breed = skills.get("farm.breed")
    assert breed.check(world({"dirt": 3}), {}) == (
        "no food held to breed cow/sheep/pig/chicken (beetroot, beetroot_seeds, carrot,"
        " melon_seeds, potato, pumpkin_seeds, wheat, wheat_seeds)"
    )
    assert breed.check(world({"carrot": 2}), {"names": ["cow"]}) is not None
    assert breed.check(world({"carrot": 2}), {"names": ["pig"]}) is None
    link = FakeLink()

    breed.run(link, {}, world({"wheat": 4}, ("cow", 5.0), ("pig", 3.0)))  # one cow only

    assert link.last().name == "goto"  # a step of exploring


def test_gather_wool_shears_with_shears_and_hunts_a_sheep_without() -> None:
    wool = skills.get("gather.wool")
    link = FakeLink()

    wool.run(link, {}, world({"shears": 1}, ("sheep", 6.0)))
    assert link.last().name == "shear" and link.last().args == {"radius": 16.0}

    wool.run(link, {}, world({"iron_sword": 1}, ("sheep", 6.0)))
    assert link.last().name == "hunt"
    assert link.last().args == {"names": ["sheep"], "radius": 32.0}

    wool.run(link, {}, world({"iron_sword": 1}, ("cow", 6.0)))  # no sheep in sight
    assert link.last().name == "goto"
