"""Goals, plans and the memory protocol on a real server: chat goal → plan → milestones → diary."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

import skills
from pepa.state.plans import parse_plan
from pepa.worldserver.process import EmbeddedWorld
from tests.daemon_harness import Daemon
from tests.waiting import eventually
from tests.world_harness import Player

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

BOT_OPTIONS = {"curriculum": True}
"""The ``bot`` fixture\'s daemon works its plan by itself."""

BOT = "pepa_bot"


def test_a_fresh_bot_writes_its_default_goal_and_plan_and_remembers_spawn(bot: Daemon) -> None:
    state = bot.socket.parent
    eventually(lambda: (state / "plan.md").exists(), what="plan.md")
    assert "survive" in (state / "goal.md").read_text()
    plan = parse_plan((state / "plan.md").read_text())
    assert plan and all(skills.get(m.skill) for m in plan if m.actionable)
    eventually(lambda: (state / "locations.json").exists(), what="locations.json")
    assert '"spawn"' in (state / "locations.json").read_text()
    bot.wait_line("memory: joined before no; task none; plan 0/0 done", start=0)


def test_an_operators_goal_becomes_a_plan_whose_milestones_tick_into_the_diary(
    world: EmbeddedWorld, bot: Daemon
) -> None:
    state = bot.socket.parent
    alice = Player(world, "alice")
    try:
        start = alice.mark()
        alice.say(f"{BOT} goal make a crafting table")
        reply = alice.reply_from(BOT, "Goal set: make a crafting table", start=start)
        assert "first 1 oak_log (gather.wood)" in reply
        plan = (state / "plan.md").read_text()
        assert "- [ ] 1 oak_log (gather.wood)" in plan
        assert "- [ ] 1 crafting_table (craft.crafting_table)" in plan
        assert (state / "plan.md.bak").exists()  # the default plan, kept
        # the flat world has no trees: an operator hands over a log, the milestone is met
        world.op("give", player=BOT, item="oak_log", count=1)
        eventually(
            lambda: "- [x] 1 oak_log (gather.wood)" in (state / "plan.md").read_text(),
            what="the oak_log milestone ticked",
        )
        # the diary line is written just after the plan (a busy machine: not yet read here)
        eventually(
            lambda: (
                "done: 1 oak_log (gather.wood)" in next((state / "diary").iterdir()).read_text()
            ),
            timeout=10,
            what="the diary's line for the oak_log",
        )
        diary = next((state / "diary").iterdir()).read_text()
        assert "new goal from alice: make a crafting table" in diary
        assert "done: 1 oak_log (gather.wood)" in diary
        start = alice.mark()
        alice.say(f"{BOT} plan")
        assert "Plan 1/2 done" in alice.reply_from(BOT, "Plan", start=start)
    finally:
        alice.close()


@pytest.fixture
def sandbox_bot(short_tmp: Path, sandbox_world: EmbeddedWorld) -> Iterator[Daemon]:
    daemon = Daemon(
        short_tmp,
        "--operators",
        "alice",
        host="127.0.0.1",
        port=sandbox_world.port,
        curriculum=True,
    )
    daemon.in_world()
    yield daemon
    daemon.close()


@pytest.mark.timeout(180)
def test_in_the_sandbox_the_bot_chops_a_tree_and_makes_a_crafting_table(
    sandbox_world: EmbeddedWorld, sandbox_bot: Daemon
) -> None:
    state = sandbox_bot.socket.parent
    sandbox_world.op("spawning", on=False)  # this scenario is about work, not fights
    alice = Player(sandbox_world, "alice")
    try:
        alice.say(f"{BOT} goal make a crafting table")
        alice.reply_from(BOT, "Goal set", start=0)
    finally:
        alice.close()
    sandbox_bot.wait_line("task: gather.wood", timeout=30)

    def diary() -> str:
        days = sorted((state / "diary").iterdir()) if (state / "diary").exists() else []
        return days[-1].read_text() if days else ""

    try:
        eventually(
            lambda: (
                "- [x] 1 crafting_table (craft.crafting_table)" in (state / "plan.md").read_text()
            ),
            timeout=120,
            what="the crafting table milestone ticked",
        )
        # the diary line is written just after the plan: wait for it too
        eventually(
            lambda: "done: 1 crafting_table (craft.crafting_table)" in diary(),
            timeout=10,
            what="the diary's line for the crafting table",
        )
    except AssertionError:
        print("\n".join(sandbox_bot.lines[-60:]))
        raise
    assert "done: 1 oak_log (gather.wood)" in diary()
    assert "crafting_table" in str(me_inventory(sandbox_world))


def me_inventory(world: EmbeddedWorld) -> dict[str, int]:
    return dict(world.op("inventory", player=BOT))


@pytest.mark.timeout(180)
def test_kill_9_in_the_middle_of_a_task_resumes_the_same_task(
    sandbox_world: EmbeddedWorld, sandbox_bot: Daemon
) -> None:
    state = sandbox_bot.socket.parent
    sandbox_world.op("spawning", on=False)
    alice = Player(sandbox_world, "alice")
    try:
        alice.say(f"{BOT} goal make a wooden pickaxe")
        alice.reply_from(BOT, "Goal set", start=0)
    finally:
        alice.close()
    goal = sandbox_bot.wait_line("goal from alice: make a wooden pickaxe")
    started = sandbox_bot.wait_line("task: gather.wood", timeout=30, start=goal)
    task_file = state / "current-task.json"
    eventually(lambda: task_file.exists(), what="current-task.json")
    task = task_file.read_text()
    assert '"skill": "gather.wood"' in task and '"kind": "milestone"' in task
    os.kill(sandbox_bot.worker_pid(), signal.SIGKILL)
    back = sandbox_bot.in_world(start=started + 1)
    sandbox_bot.wait_line("resuming task from current-task.json: gather.wood", start=started + 1)
    sandbox_bot.wait_line("task: gather.wood", start=back)


def test_the_socket_sets_and_reads_the_goal(bot: Daemon) -> None:
    from pepa.ipc.protocol import Goal, Snapshot

    with bot.client() as client:
        client.send(Goal(text="make a furnace"))
        client.send(Snapshot())
        status = client.wait_for(
            lambda e: e["type"] == "status" and e.get("goal") == "make a furnace", timeout=15
        )
        assert status["plan"]["total"] >= 2 and status["plan"]["next"]
        client.send_raw(b'{"type": "cmd:goal", "text": " "}\n')
        error = client.wait_for(lambda e: e["type"] == "error", timeout=10)
        assert 'cmd:goal: "text" must not be empty' in error["text"]
    assert "make a furnace" in (bot.socket.parent / "goal.md").read_text()


@pytest.mark.timeout(240)
def test_in_the_sandbox_the_bot_mines_stone_makes_a_furnace_and_places_a_chest(
    sandbox_world: EmbeddedWorld, sandbox_bot: Daemon
) -> None:
    state = sandbox_bot.socket.parent
    sandbox_world.op("spawning", on=False)
    # a head start: what gathering wood and a table would give (tested above), and 5 of
    # the furnace's 8 cobblestone (mining all 8 with a wooden pickaxe adds half a minute)
    sandbox_world.op("give", player=BOT, item="oak_planks", count=16)
    sandbox_world.op("give", player=BOT, item="wooden_pickaxe", count=1)
    sandbox_world.op("give", player=BOT, item="cobblestone", count=5)
    plan = set_goal(sandbox_world, state, "a furnace and a chest")
    assert "(base.place-chest)" in plan and "(gather.stone)" in plan
    watch(sandbox_bot, state, ("gather.stone", 90), ("craft.furnace", 60), ("base.place-chest", 60))
    assert '"chest"' in (state / "locations.json").read_text()


@pytest.mark.timeout(180)
def test_in_the_sandbox_the_bot_hunts_animals_for_food(
    sandbox_world: EmbeddedWorld, sandbox_bot: Daemon
) -> None:
    state = sandbox_bot.socket.parent
    sandbox_world.op("spawning", on=False)
    sandbox_world.op("give", player=BOT, item="stone_sword", count=1)
    sandbox_world.op("spawn_mob", player=BOT, name="cow", count=5, dx=4, spacing=2)
    assert "5 food (food.hunt)" in set_goal(sandbox_world, state, "some food")
    watch(sandbox_bot, state, ("food.hunt", 120))
    food = sandbox_world.op("inventory", player=BOT)
    assert food.get("beef", 0) + food.get("cooked_beef", 0) >= 5


def set_goal(world: EmbeddedWorld, state: Path, goal: str) -> str:
    """An operator sets the goal in chat; the plan it made."""
    alice = Player(world, "alice")
    try:
        alice.say(f"{BOT} goal {goal}")
        alice.reply_from(BOT, "Goal set", start=0)
    finally:
        alice.close()
    return (state / "plan.md").read_text()


def watch(bot: Daemon, state: Path, *milestones: tuple[str, float]) -> None:
    """Wait for each skill's milestone to be ticked, in order; on failure show the bot's log."""

    def ticked(skill: str) -> bool:
        return any(m.done and m.skill == skill for m in parse_plan((state / "plan.md").read_text()))

    try:
        for skill, timeout in milestones:
            eventually(lambda s=skill: ticked(s), timeout, f"the {skill} milestone")
    except AssertionError as exc:
        tail = [line[24:200] for line in bot.lines if "pepa.actors" in line]
        raise AssertionError(f"{exc}\n" + "\n".join(tail[-25:])) from None
