"""Gauntlet 2: a yardstick that can see learning — train on some seeds, evaluate on others.

Run: ``.venv/bin/python bench/gauntlet2.py [--train-seeds 101,202,303,404,505,606]
[--train-days 3] [--eval-seeds 20261130,777,31,4242,9001] [--eval-days 3]
[--profile vanilla|gentle|hard] [--time-scale 24]``.

Training: each training seed in turn, learning on, one knowledge base carried from run
to run (each run starts from the base the previous one ended with); its deaths per run
are the learning curve. Evaluation on held-out seeds (disjoint from the training ones),
each run twice with the same code: arm ``trained`` starts from a copy of the trained
knowledge base with learning on, arm ``baseline`` from a fresh one with learning off
(``PEPA_LEARNING=0``), so the learning switch and what it learnt are the only
difference. Every run is one ``bench/gauntlet.py`` run (see there for what it measures).

Reported per arm: deaths per game day (mean and its 95 % Student-t interval over
seeds, its lower end cut at 0), deaths by cause, the share of deaths whose cause was
already seen earlier in the same run (pooled over the arm's runs), mean time alive,
milestones and stuck events; per
seed whether the trained arm died at most half as often as the baseline (a seed where
the baseline never died cannot show it); and the learning target: that on at least 4 of 5
held-out seeds, with at most 20 % repeated causes with learning on. Written to
``bench/results/gauntlet2-<timestamp>.json``, ``.csv`` and (with matplotlib:
``pip install .[bench]``) ``.png``: the learning curve and deaths by cause per arm.
``--from-json FILE`` runs nothing: it reports and redraws the figure of a results file.
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import math
import statistics
import sys
import tempfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from gauntlet import RESULTS, interval, run

from pepa.worldserver.profiles import PROFILES

log = logging.getLogger("gauntlet2")

ARMS = {"trained": "on", "baseline": "off"}
"""Evaluation arms and their learning switch."""


def _seeds(text: str) -> list[int]:
    return [int(seed) for seed in text.split(",") if seed.strip()]


def _causes(row: dict[str, Any]) -> Counter[str]:
    """A run's ``deaths_by_cause`` (``2 mob by zombie; 1 lava``) back as counts."""
    counts: Counter[str] = Counter()
    for part in filter(None, str(row["deaths_by_cause"]).split("; ")):
        n, cause = part.split(" ", 1)
        counts[cause] += int(n)
    return counts


def train(args: argparse.Namespace, base: Path) -> list[dict[str, Any]]:
    """The training runs, in order, one knowledge base (``base``) carried through them."""
    rows: list[dict[str, Any]] = []
    for index, seed in enumerate(_seeds(args.train_seeds), 1):
        row = run(
            "on",
            days=args.train_days,
            seed=seed,
            time_scale=args.time_scale,
            profile=args.profile,
            knowledge=base if base.exists() else None,
            keep=base,
        )
        rows.append({"phase": "train", "arm": "training", "run": index, **row})
        log.info("training run %d (seed %d): %d deaths", index, seed, row["deaths"])
    return rows


def evaluate(args: argparse.Namespace, base: Path) -> list[dict[str, Any]]:
    """Per held-out seed, the trained arm then the baseline."""
    rows: list[dict[str, Any]] = []
    for seed in _seeds(args.eval_seeds):
        for arm, mode in ARMS.items():
            row = run(
                mode,
                days=args.eval_days,
                seed=seed,
                time_scale=args.time_scale,
                profile=args.profile,
                knowledge=base if arm == "trained" and base.exists() else None,
            )
            rows.append({"phase": "eval", "arm": arm, "run": len(rows) + 1, **row})
    return rows


def summarise(evaluation: list[dict[str, Any]]) -> dict[str, Any]:
    """Per arm, per seed and the target's verdict, as plain values (the JSON's ``summary``)."""
    arms: dict[str, Any] = {}
    for arm in ARMS:
        rows = [row for row in evaluation if row["arm"] == arm]
        mean, half = interval([float(row["deaths_per_game_day"]) for row in rows])
        causes: Counter[str] = sum((_causes(row) for row in rows), Counter())
        seen = sum(causes.values())
        repeats = sum(int(row["repeat_deaths"]) for row in rows)
        arms[arm] = {
            "seeds": len(rows),
            "deaths_per_game_day_mean": round(mean, 3),
            "deaths_per_game_day_ci95": [round(max(0.0, mean - half), 3), round(mean + half, 3)],
            "deaths": sum(int(row["deaths"]) for row in rows),
            "deaths_by_cause": dict(causes.most_common()),
            "repeat_cause_rate": round(repeats / seen, 3) if seen else None,
            "mean_alive_game_days": round(
                statistics.fmean(float(row["mean_alive_game_days"]) for row in rows), 2
            ),
            "mean_alive_real_s": round(
                statistics.fmean(float(row["mean_alive_real_s"]) for row in rows), 1
            ),
            "milestones_mean": round(
                statistics.fmean(int(str(row["milestones"]).split("/")[0]) for row in rows), 1
            ),
            "stuck_events": sum(int(row["stuck_events"]) for row in rows),
        }
    per_seed = []
    for seed in dict.fromkeys(row["seed"] for row in evaluation):
        by_arm = {row["arm"]: row for row in evaluation if row["seed"] == seed}
        trained = float(by_arm["trained"]["deaths_per_game_day"])
        baseline = float(by_arm["baseline"]["deaths_per_game_day"])
        halved = None if baseline == 0 else trained <= baseline / 2
        per_seed.append({"seed": seed, "trained": trained, "baseline": baseline, "halved": halved})
    count = sum(seed["halved"] is True for seed in per_seed)
    needed = math.ceil(0.8 * len(per_seed))  # 4 of 5
    rate = arms["trained"]["repeat_cause_rate"]
    verdict = {
        "seeds_halved": count,
        "seeds_showable": sum(seed["halved"] is not None for seed in per_seed),
        "seeds": len(per_seed),
        "seeds_needed": needed,
        # the issue asks for at least 5 held-out seeds: fewer cannot meet the target
        "halved_target_met": count >= needed if len(per_seed) >= 5 else None,
        "repeat_at_most_20_percent": None if rate is None else rate <= 0.2,
    }
    return {"arms": arms, "per_seed": per_seed, "verdict": verdict}


def report(training: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    """The learning curve, the arms side by side, per seed and the target's verdict."""
    total = 0
    print("training (learning on, one knowledge base carried):")
    for row in training:
        total += int(row["deaths"])
        print(
            f"  run {row['run']} seed {row['seed']}: {row['deaths']} deaths "
            f"({row['deaths_by_cause'] or 'none'}), cumulative {total}, "
            f"milestones {row['milestones']}"
        )
    arms = summary["arms"]
    keys = list(arms["trained"])
    width = max(map(len, keys))
    print(f"\n{'':{width}}  {'trained (on)':>28}  {'baseline (off)':>28}")
    for key in keys:
        values = [arms[arm][key] for arm in ARMS]
        shown = ["; ".join(f"{n} {c}" for c, n in v.items()) or "none" if isinstance(v, dict)
                 else v for v in values]  # fmt: skip
        print(f"{key:{width}}  {shown[0]!s:>28}  {shown[1]!s:>28}")
    print("\nper held-out seed (deaths per game day):")
    for seed in summary["per_seed"]:
        halved = seed["halved"]
        said = (
            "cannot show it: the baseline never died"
            if halved is None
            else ("halved" if halved else "not halved")
        )
        print(f"  {seed['seed']}: trained {seed['trained']}, baseline {seed['baseline']}: {said}")
    verdict = summary["verdict"]
    met = verdict["halved_target_met"]
    print(
        f"\ntarget 1 (halved on at least 4 of 5 held-out seeds, here {verdict['seeds_needed']} "
        f"of {verdict['seeds']}): halved on {verdict['seeds_halved']} of {verdict['seeds']} seeds "
        f"({verdict['seeds_showable']} with baseline deaths to halve): "
        + ("met" if met else "not met" if met is False else "not assessable: fewer than 5 seeds")
    )
    rate = arms["trained"]["repeat_cause_rate"]
    seen = sum(arms["trained"]["deaths_by_cause"].values())
    print(
        "target 2 (at most 20 % of deaths repeat a cause, learning on): "
        + (
            "no deaths with learning on: nothing to repeat"
            if rate is None
            else f"{rate:.0%} of {seen} deaths: {'met' if rate <= 0.2 else 'not met'}"
        )
    )


def plot(path: Path, training: list[dict[str, Any]], summary: dict[str, Any]) -> bool:
    """The PNG: left the learning curve, right deaths by cause per arm; False without
    matplotlib (an optional extra: the protocol itself does not need it)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        return False
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    runs = [int(row["run"]) for row in training]
    per_run = [int(row["deaths"]) for row in training]
    cumulative = [sum(per_run[: i + 1]) for i in range(len(per_run))]
    left.bar(runs, per_run, color="#9ab", label="deaths in the run")
    left.plot(runs, cumulative, marker="o", color="#c33", label="cumulative deaths")
    left.set_xticks(runs, [f"{r}\n{row['seed']}" for r, row in zip(runs, training, strict=True)])
    left.set_ylim(0, max([1, *cumulative]) * 1.15)
    left.set_xlabel("training run (seed)")
    left.set_ylabel("deaths")
    left.set_title(f"learning curve ({training[0]['game_days'] if training else 0} game days/run)")
    left.legend()
    arms = summary["arms"]
    causes = list(dict.fromkeys(c for arm in ARMS for c in arms[arm]["deaths_by_cause"]))
    bottom = [0] * len(ARMS)
    for cause in causes:
        counts = [arms[arm]["deaths_by_cause"].get(cause, 0) for arm in ARMS]
        right.bar(list(ARMS), counts, bottom=bottom, label=cause)
        bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
    for axes in (left, right):
        axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    right.set_ylabel("deaths (all held-out seeds)")
    right.set_title("deaths by cause per arm")
    if causes:
        right.legend(fontsize="small")
    else:
        right.text(0.5, 0.5, "no deaths", ha="center", transform=right.transAxes)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return True


def write(stamp: str, args: argparse.Namespace, rows: list[dict[str, Any]], summary: Any) -> Path:
    """The JSON (protocol, every run, summary) and the CSV (one row per run)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    stem = RESULTS / f"gauntlet2-{stamp}"
    protocol = {k: getattr(args, k) for k in ("train_seeds", "train_days", "eval_seeds")}
    protocol |= {"eval_days": args.eval_days, "profile": args.profile}
    protocol |= {"time_scale": args.time_scale}
    document = {"protocol": protocol, "runs": rows, "summary": summary}
    stem.with_suffix(".json").write_text(json.dumps(document, indent=2) + "\n")
    keys = list(dict.fromkeys(key for row in rows for key in row))
    with stem.with_suffix(".csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=keys, restval="")
        writer.writeheader()
        writer.writerows(rows)
    return stem


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-seeds", default="101,202,303,404,505,606")
    parser.add_argument("--train-days", type=int, default=3, help="game days per training run")
    parser.add_argument("--eval-seeds", default="20261130,777,31,4242,9001", help="held-out seeds")
    parser.add_argument("--eval-days", type=int, default=3, help="game days per evaluation run")
    parser.add_argument("--profile", choices=PROFILES, default="vanilla")
    parser.add_argument("--time-scale", type=float, default=24.0, help="game time speed-up")
    parser.add_argument(
        "--from-json", type=Path, help="no runs: report and redraw the figure of a results JSON"
    )
    args = parser.parse_args()
    if args.from_json is not None:
        runs = json.loads(args.from_json.read_text())["runs"]
        training = [row for row in runs if row["phase"] == "train"]
        summary = summarise([row for row in runs if row["phase"] == "eval"])
        report(training, summary)
        if plot(args.from_json.with_suffix(".png"), training, summary):
            print(f"figure: {args.from_json.with_suffix('.png')}")
        return
    train_seeds, eval_seeds = _seeds(args.train_seeds), _seeds(args.eval_seeds)
    if not train_seeds or not eval_seeds:
        parser.error("--train-seeds and --eval-seeds need at least one seed each")
    if set(train_seeds) & set(eval_seeds):
        parser.error(f"seeds both trained and held out: {set(train_seeds) & set(eval_seeds)}")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    base = Path(tempfile.mkdtemp(prefix="pepa-gauntlet2-", dir="/tmp")) / "trained.db"
    training = train(args, base)
    log.info("trained knowledge base: %s", base)
    evaluation = evaluate(args, base)
    summary = summarise(evaluation)
    report(training, summary)
    stem = write(stamp, args, training + evaluation, summary)
    print(f"\nresults: {stem}.json, {stem.name}.csv")
    if plot(stem.with_suffix(".png"), training, summary):
        print(f"figure: {stem}.png")
    else:
        print("no figure: matplotlib is missing (pip install .[bench])")


if __name__ == "__main__":
    main()
