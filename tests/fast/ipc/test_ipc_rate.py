"""The socket's per-client command rate (pure: times are passed in, no threads)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pepa.ipc.ratelimit import COMMAND_BURST, COMMAND_RATE, CommandRate


def test_a_burst_passes_then_the_rate_and_the_rest_is_dropped() -> None:
    rate = CommandRate(10.0, 30)
    assert [rate.admit(1, 0.0) for _ in range(31)] == [True] * 30 + [False]
    assert rate.report(1, 0.0) == 1  # the first drop is told at once
    assert not rate.admit(1, 0.05)  # half a token
    assert rate.report(1, 0.05) == 0  # the next report waits a second
    assert rate.admit(1, 0.1) and not rate.admit(1, 0.1)  # one token per 0.1 s
    assert rate.report(1, 0.99) == 0
    assert rate.report(1, 1.0) == 2  # everything dropped since, in one number
    assert rate.report(1, 5.0) == 0  # nothing dropped since: nothing to tell


def test_clients_have_their_own_buckets_and_idle_ones_are_forgotten() -> None:
    rate = CommandRate(10.0, 30)
    for _ in range(40):
        rate.admit(1, 0.0)
    assert all(rate.admit(2, 0.0) for _ in range(20))  # not slowed by the first client
    assert rate.clients() == 2
    assert rate.sweep(0.5) == [(1, 10)]  # due: told on the heartbeat
    assert rate.sweep(0.6) == []
    assert rate.clients() == 2  # both still refilling
    assert rate.sweep(2.1) == [] and rate.clients() == 1  # the second one is full again
    assert rate.sweep(10.0) == [] and rate.clients() == 0  # full again: like new clients


def test_bad_settings_are_refused() -> None:
    for args in ((0.0, 30), (10.0, 0), (-1.0, 5)):
        with pytest.raises(ValueError, match="bad command rate"):
            CommandRate(*args)


arrivals = st.lists(
    st.tuples(st.integers(0, 3), st.floats(0.0, 0.5, allow_nan=False)), max_size=400
)


@settings(max_examples=150)
@given(arrivals=arrivals, sweeps=st.booleans())
def test_no_client_gets_more_than_burst_plus_rate_and_every_drop_is_told_once(
    arrivals: list[tuple[int, float]], sweeps: bool
) -> None:
    rate = CommandRate(COMMAND_RATE, COMMAND_BURST)
    now = 0.0
    admitted: dict[int, list[float]] = {}
    dropped: dict[int, int] = {}
    told: dict[int, list[tuple[float, int]]] = {}

    def tell(client: int, count: int) -> None:
        told.setdefault(client, []).append((now, count))

    for client, gap in arrivals:
        now += gap
        if rate.admit(client, now):
            admitted.setdefault(client, []).append(now)
        else:
            dropped[client] = dropped.get(client, 0) + 1
            if count := rate.report(client, now):
                tell(client, count)
        if sweeps:
            for who, count in rate.sweep(now):
                tell(who, count)
    now += 3600.0
    for who, count in rate.sweep(now):
        tell(who, count)
    for times in admitted.values():  # any window: at most a burst plus the rate over it
        for i, start in enumerate(times):
            for j in range(i, len(times)):
                assert j - i + 1 <= COMMAND_BURST + COMMAND_RATE * (times[j] - start) + 1e-6
    for client, reports in told.items():
        assert sum(count for _, count in reports) == dropped[client]
        gaps = [b[0] - a[0] for a, b in itertools.pairwise(reports)]
        assert all(gap >= 1.0 for gap in gaps)  # at most one report a second
    assert set(told) == set(dropped)
    assert rate.clients() == 0
