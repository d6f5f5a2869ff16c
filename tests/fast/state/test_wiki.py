"""Wiki lookups: the pure parts, then a real client against a loopback wiki and a real SQLite file.

The loopback wiki (``tests/wiki_server.py``) is an ``http.server`` on 127.0.0.1 serving a
robots.txt and pages written here; it records every request with its headers. Time is
injected: a fake wall clock for the TTLs and a fake monotonic clock whose ``sleep`` only
records, so the one-request-a-second pacing is checked without waiting.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta
from urllib.robotparser import RobotFileParser

import pytest

import pepa
from pepa.state.knowledge import KnowledgeStore
from pepa.state.knowledge.wiki import (
    CachedPage,
    default_user_agent,
    freshness,
    lookup,
    normalise_title,
    page_path,
    redirect_target,
    robots_allowed,
    summarise,
)
from pepa.worldserver.process import free_port
from tests.wiki_server import BREAD, BREAD_SUMMARY, Clock, Pace, Wiki, make_client

pytestmark = pytest.mark.timeout(20)


STORED_BREAD = BREAD.strip()
"""What the database gives back: Pony strips a text column's surrounding whitespace."""

IRON_INGOT = "'''Iron ingots''' are metal [[item]]s obtained by [[smelting]] [[iron ore]].\n"


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("bread", "Bread"),
        (" iron  ingot ", "Iron_ingot"),
        ("crafting_table", "Crafting_table"),
        ("Jack o'Lantern", "Jack_o'Lantern"),
        ("__creeper__", "Creeper"),
    ],
)
def test_titles_are_normalised_as_mediawiki_does(title: str, name: str) -> None:
    assert normalise_title(title) == name


@pytest.mark.parametrize("title", ["", "   ", "a|b", "[[Bread]]", "{{x}}", "Bread#Usage", "a\x7fb"])
def test_titles_that_cannot_be_pages_are_refused(title: str) -> None:
    with pytest.raises(ValueError, match="not a wiki page title"):
        normalise_title(title)


def test_page_paths_ask_for_raw_wikitext_and_are_quoted() -> None:
    assert page_path("Bread") == "/w/Bread?action=raw"
    assert page_path("Jack_o'Lantern") == "/w/Jack_o'Lantern?action=raw"
    assert page_path("Why?_Café") == "/w/Why%3F_Caf%C3%A9?action=raw"
    assert page_path("Java_Edition_1.16.5", "/mc") == "/mc/w/Java_Edition_1.16.5?action=raw"


def test_freshness_chooses_the_cache_a_revalidation_or_a_new_fetch() -> None:
    now = datetime(2026, 6, 1)

    def page(age: timedelta, etag: str | None) -> CachedPage:
        return CachedPage(title="Bread", etag=etag, body=BREAD, fetched_at=now - age)

    assert freshness(None, now) == "fetch"
    assert freshness(page(timedelta(days=6, hours=23), '"v1"'), now) == "fresh"
    assert freshness(page(timedelta(days=7), '"v1"'), now) == "revalidate"
    assert freshness(page(timedelta(days=8), None), now) == "fetch"


def test_redirect_pages_name_their_target() -> None:
    assert redirect_target("#REDIRECT [[Iron Ingot]]") == "Iron Ingot"
    assert redirect_target("  #redirect:[[Bread#Crafting|bread]]\n[[Category:R]]") == "Bread"
    assert redirect_target(BREAD) is None


def test_the_summary_is_the_lead_paragraph_without_templates_refs_images_or_markup() -> None:
    assert summarise(BREAD) == BREAD_SUMMARY
    nested = (
        "{{Infobox|a={{nested|b}}|c=d}}\n{| class=wikitable\n| cell\n|}\n"
        "[[File:Creeper.png|thumb|A [[creeper]] about to explode]]\n"
        "A '''creeper''' is a [[hostile mob|hostile]] [[mob]] that explodes&nbsp;near "
        "[https://example.org players].__NOTOC__<br/>Keep away.\n"
        "[[de:Creeper]]\n"
    )
    assert summarise(nested) == (
        "A creeper is a hostile mob that explodes near players. Keep away."
    )
    assert summarise("{{only a template}}\n== Heading ==\n* a list\n") == ""


def test_a_long_summary_ends_at_a_sentence() -> None:
    text = "Zombies are slow. " * 60
    summary = summarise(text, limit=100)
    assert summary.endswith("slow.") and len(summary) <= 100
    assert summarise("x" * 300, limit=50) == "x" * 49 + "…"


def _robots(text: str) -> RobotFileParser:
    parser = RobotFileParser()
    parser.parse(text.splitlines())
    return parser


def test_robots_rules_know_wildcards_and_the_longest_match_wins() -> None:
    agent = "pepa/0.1.0 (Minecraft survival bot knowledge lookup)"
    robots = _robots(
        "User-agent: *\nDisallow: /w/Special:\nDisallow: /*?action=edit\n"
        "Disallow: /images/*.png$\nDisallow: /w/Secret\nAllow: /w/Secret_recipes\n"
    )
    assert robots_allowed(robots, agent, "/w/Bread?action=raw")
    assert not robots_allowed(robots, agent, "/w/Bread?action=edit")
    assert not robots_allowed(robots, agent, "http://h/w/Special:Random")
    assert not robots_allowed(robots, agent, "/images/a/b.png")
    assert robots_allowed(robots, agent, "/images/a/b.png.txt")
    assert not robots_allowed(robots, agent, "/w/Secret_page?action=raw")
    assert robots_allowed(robots, agent, "/w/Secret_recipes?action=raw")
    only_us = _robots("User-agent: pepa\nDisallow: /\n\nUser-agent: *\nDisallow:\n")
    assert not robots_allowed(only_us, agent, "/w/Bread?action=raw")
    assert robots_allowed(only_us, "OtherBot/1.0", "/w/Bread?action=raw")


def test_the_user_agent_names_pepa_its_version_and_its_purpose() -> None:
    agent = default_user_agent()
    assert agent.startswith(f"pepa/{pepa.__version__} (")
    assert agent.endswith("Minecraft survival bot knowledge lookup)")


def test_the_store_keeps_wiki_pages(store: KnowledgeStore, clock: Clock) -> None:
    assert store.wiki_page("Bread") is None
    store.save_wiki_page("Bread", None, BREAD, clock.now)
    assert store.wiki_page("Bread") == CachedPage(
        title="Bread", etag=None, body=STORED_BREAD, fetched_at=clock.now
    )
    store.save_wiki_page("Bread", '"v2"', "new", clock.now + timedelta(days=1))
    page = store.wiki_page("Bread")
    assert page is not None and (page.etag, page.body) == ('"v2"', "new")
    assert store.counts()["wiki_pages"] == 1


def test_the_first_lookup_reads_robots_txt_then_stores_the_page_with_its_etag(
    wiki: Wiki, store: KnowledgeStore, clock: Clock, pace: Pace
) -> None:
    client = make_client(wiki.url, clock, pace)
    assert lookup(store, client, "bread") == BREAD_SUMMARY
    assert wiki.paths == ["/robots.txt", "/w/Bread?action=raw"]
    for index in (0, 1):
        assert wiki.headers(index)["User-Agent"] == client.user_agent
        assert "If-None-Match" not in wiki.headers(index)
    assert client.user_agent.startswith("pepa/")
    assert pace.slept == [1.0]  # the page waited a second after robots.txt
    page = store.wiki_page("Bread")
    assert page is not None
    assert (page.etag, page.body, page.fetched_at) == ('"v1"', STORED_BREAD, clock.now)


def test_a_second_lookup_within_seven_days_sends_no_request(
    wiki: Wiki, store: KnowledgeStore, clock: Clock, pace: Pace
) -> None:
    client = make_client(wiki.url, clock, pace)
    lookup(store, client, "bread")
    clock.advance(days=6, hours=23)
    again = make_client(wiki.url, clock, pace)  # even a new client: the cache is the database
    assert lookup(store, again, "Bread") == BREAD_SUMMARY
    assert client.fetch("Bread", store.wiki_page("Bread")).status == "cached"
    assert len(wiki.paths) == 2 and again.requests == 0


def test_after_seven_days_an_unchanged_page_is_revalidated_with_its_etag(
    wiki: Wiki, store: KnowledgeStore, clock: Clock, pace: Pace
) -> None:
    client = make_client(wiki.url, clock, pace)
    lookup(store, client, "bread")
    clock.advance(days=8)
    result = client.fetch("Bread", store.wiki_page("Bread"))
    assert (result.status, result.ok, result.body) == ("not-modified", True, STORED_BREAD)
    assert (result.etag, result.fetched_at) == ('"v1"', clock.now)
    # robots.txt is a day old by now, so it is read again before the page
    assert wiki.paths[2:] == ["/robots.txt", "/w/Bread?action=raw"]
    assert wiki.headers(3)["If-None-Match"] == '"v1"'


def test_a_304_keeps_the_body_and_refreshes_fetched_at_in_the_store(
    wiki: Wiki, store: KnowledgeStore, clock: Clock, pace: Pace
) -> None:
    client = make_client(wiki.url, clock, pace)
    lookup(store, client, "bread")
    clock.advance(days=8)
    assert lookup(store, client, "bread") == BREAD_SUMMARY
    assert wiki.headers(-1)["If-None-Match"] == '"v1"'
    page = store.wiki_page("Bread")
    assert page is not None
    assert (page.body, page.etag, page.fetched_at) == (STORED_BREAD, '"v1"', clock.now)
    assert wiki.paths.count("/w/Bread?action=raw") == 2


def test_after_seven_days_a_changed_page_comes_back_whole(
    wiki: Wiki, store: KnowledgeStore, clock: Clock, pace: Pace
) -> None:
    client = make_client(wiki.url, clock, pace)
    lookup(store, client, "bread")
    wiki.pages["/w/Bread"] = ("'''Bread''' is now baked from wheat.", '"v2"')
    clock.advance(days=8)
    assert lookup(store, client, "bread") == "Bread is now baked from wheat."
    assert wiki.headers(-1)["If-None-Match"] == '"v1"'
    page = store.wiki_page("Bread")
    assert page is not None and page.etag == '"v2"' and page.fetched_at == clock.now


def test_a_page_robots_txt_disallows_is_never_requested(
    wiki: Wiki, store: KnowledgeStore, clock: Clock, pace: Pace
) -> None:
    wiki.pages["/w/Secret_stash"] = ("'''Secret''' things.", None)
    client = make_client(wiki.url, clock, pace)
    result = client.fetch("secret stash")
    assert (result.ok, result.status) == (False, "disallowed")
    assert "robots.txt disallows /w/Secret_stash" in result.reason
    assert lookup(store, client, "secret stash") is None
    assert wiki.paths == ["/robots.txt"]


def test_a_forbidden_robots_txt_keeps_the_client_out_entirely(
    wiki: Wiki, clock: Clock, pace: Pace
) -> None:
    wiki.robots_status = 403
    client = make_client(wiki.url, clock, pace)
    assert client.fetch("Bread").status == "disallowed"
    assert wiki.paths == ["/robots.txt"]


def test_no_robots_txt_means_no_rules(wiki: Wiki, clock: Clock, pace: Pace) -> None:
    wiki.robots_status = 404
    client = make_client(wiki.url, clock, pace)
    assert client.fetch("Bread").status == "fetched"


def test_a_crawl_delay_in_robots_txt_slows_requests_down(
    wiki: Wiki, clock: Clock, pace: Pace
) -> None:
    wiki.robots = "User-agent: *\nCrawl-delay: 3\n"
    client = make_client(wiki.url, clock, pace)
    assert client.fetch("Bread").ok
    assert client.fetch("Iron ingot").status == "missing"
    assert pace.slept == [3.0, 3.0]


def test_a_missing_page_is_a_clear_result_remembered_for_a_day(
    wiki: Wiki, store: KnowledgeStore, clock: Clock, pace: Pace
) -> None:
    client = make_client(wiki.url, clock, pace)
    result = client.fetch("Phantom membrane")
    assert (result.ok, result.status) == (False, "missing")
    assert "no page Phantom_membrane" in result.reason
    assert lookup(store, client, "phantom membrane") is None
    assert wiki.paths.count("/w/Phantom_membrane?action=raw") == 1
    clock.advance(days=1)
    client.fetch("Phantom membrane")
    assert wiki.paths.count("/w/Phantom_membrane?action=raw") == 2
    assert store.counts()["wiki_pages"] == 0


def test_a_redirect_is_followed_once_and_both_pages_are_cached(
    wiki: Wiki, store: KnowledgeStore, clock: Clock, pace: Pace
) -> None:
    wiki.pages["/w/Iron_ingot"] = ("#REDIRECT [[Iron Ingot]]", '"r1"')
    wiki.pages["/w/Iron_Ingot"] = (IRON_INGOT, '"i1"')
    wiki.pages["/w/Loop"] = ("#REDIRECT [[Loop two]]", None)
    wiki.pages["/w/Loop_two"] = ("#REDIRECT [[Loop]]", None)
    client = make_client(wiki.url, clock, pace)
    summary = lookup(store, client, "iron ingot")
    assert summary == "Iron ingots are metal items obtained by smelting iron ore."
    assert store.wiki_page("Iron_ingot") is not None and store.wiki_page("Iron_Ingot") is not None
    assert lookup(store, client, "loop") is None


def test_credentials_in_the_wiki_url_never_reach_a_log_or_an_error(
    clock: Clock, pace: Pace, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="pepa.state.knowledge.wiki")
    client = make_client(f"http://wikiuser:s3cr3t@127.0.0.1:{free_port()}", clock, pace)
    result = client.fetch("Bread")
    assert result.status == "offline"
    said = [result.reason, repr(client), *(r.getMessage() for r in caplog.records)]
    assert not any("s3cr3t" in text or "wikiuser" in text for text in said), said


def test_with_the_server_down_a_lookup_is_quiet(
    store: KnowledgeStore, clock: Clock, pace: Pace, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="pepa.state.knowledge.wiki")
    client = make_client(f"http://127.0.0.1:{free_port()}", clock, pace)
    result = client.fetch("Bread")
    assert (result.ok, result.status) == (False, "offline")
    assert "unreachable" in result.reason
    assert lookup(store, client, "bread") is None
    assert client.requests == 1  # the second try backs off without connecting
    infos = [r for r in caplog.records if r.levelno >= logging.INFO]
    assert len(infos) == 1 and infos[0].levelno == logging.INFO
    pace.t += 61
    assert client.fetch("Bread").status == "offline"
    assert client.requests == 2
    assert len([r for r in caplog.records if r.levelno >= logging.INFO]) == 1


def test_with_the_server_down_a_stale_copy_still_answers(
    store: KnowledgeStore, clock: Clock, pace: Pace
) -> None:
    store.save_wiki_page("Bread", '"v1"', BREAD, clock.now - timedelta(days=30))
    client = make_client(f"http://127.0.0.1:{free_port()}", clock, pace)
    assert lookup(store, client, "bread") == BREAD_SUMMARY
    page = store.wiki_page("Bread")
    assert page is not None and page.fetched_at == clock.now - timedelta(days=30)


def test_an_unresolvable_host_is_quiet(clock: Clock, pace: Pace) -> None:
    client = make_client("http://wiki.invalid", clock, pace, timeout=2.0)
    result = client.fetch("Bread")
    assert (result.ok, result.status) == (False, "offline")


def test_a_slow_server_times_out_quietly(wiki: Wiki, clock: Clock, pace: Pace) -> None:
    wiki.slow.add("/w/Bread")
    client = make_client(wiki.url, clock, pace, timeout=0.3)
    started = time.monotonic()
    result = client.fetch("Bread")
    assert (result.ok, result.status) == (False, "offline")
    assert "timed out" in result.reason
    assert time.monotonic() - started < 3.0


def test_an_overloaded_wiki_is_left_alone_for_its_retry_after(
    wiki: Wiki, clock: Clock, pace: Pace
) -> None:
    wiki.replies["/w/Bread"] = (503, {"Retry-After": "120"})
    client = make_client(wiki.url, clock, pace)
    result = client.fetch("Bread")
    assert (result.status, result.reason) == ("error", "HTTP 503 for /w/Bread?action=raw")
    pace.t += 100
    assert client.fetch("Bread").status == "offline"
    assert wiki.paths == ["/robots.txt", "/w/Bread?action=raw"]
    pace.t += 21
    del wiki.replies["/w/Bread"]
    assert client.fetch("Bread").status == "fetched"


def test_a_huge_body_is_capped(wiki: Wiki, clock: Clock, pace: Pace) -> None:
    wiki.pages["/w/Huge"] = ("'''Huge''' page.\n" + "x" * (2 * 1024 * 1024), None)
    client = make_client(wiki.url, clock, pace)
    result = client.fetch("Huge")
    assert result.ok and result.truncated
    assert len(result.body.encode()) == 512 * 1024
    assert summarise(result.body, limit=20).startswith("Huge page.")


def test_with_lookups_off_only_the_cache_answers(store: KnowledgeStore, clock: Clock) -> None:
    assert lookup(store, None, "bread") is None
    store.save_wiki_page("Bread", None, BREAD, clock.now - timedelta(days=30))
    assert lookup(store, None, "bread") == BREAD_SUMMARY
    assert lookup(None, None, "bread") is None
