"""The bus subjects (studpoker.cluster.subjects): built and parsed in one place, bad ids refused."""

from __future__ import annotations

import pytest

from studpoker.cluster import subjects
from studpoker.cluster.bus import matches


def test_each_subject_parses_back_to_what_built_it() -> None:
    assert subjects.parse(subjects.table_commands(17)) == subjects.TableCommand(17)
    assert subjects.parse(subjects.gateway_out("eu-2")) == subjects.GatewayOut("eu-2")
    assert subjects.parse(subjects.lobby_summary(0)) == subjects.LobbySummary(0)
    assert subjects.parse(subjects.tournament_commands(4)) == subjects.TournamentCommand(4)
    assert subjects.parse(subjects.tournament_summary(4)) == subjects.TournamentSummary(4)
    for kind in subjects.BROADCAST_KINDS:
        assert subjects.parse(subjects.broadcast(kind)) == subjects.Broadcast(kind)


def test_the_subjects_are_the_designs() -> None:
    assert subjects.table_commands(3) == "table.3.cmd"
    assert subjects.gateway_out("1") == "gw.1.out"
    assert subjects.lobby_summary(3) == "lobby.table.3"
    assert subjects.tournament_commands(3) == "tournament.3.cmd"
    assert subjects.tournament_summary(3) == "lobby.tournament.3"
    assert subjects.broadcast("logout") == "room.logout"
    assert subjects.inbox_prefix("gateway-1") == "_INBOX.gateway-1"


def test_each_role_pattern_covers_its_subjects_and_no_others() -> None:
    built = {
        subjects.TABLE_COMMANDS: subjects.table_commands(5),
        subjects.ALL_GATEWAYS_OUT: subjects.gateway_out("2"),
        subjects.LOBBY_SUMMARIES: subjects.lobby_summary(5),
        subjects.BROADCASTS: subjects.broadcast("presence"),
        subjects.TOURNAMENT_COMMANDS: subjects.tournament_commands(5),
        subjects.TOURNAMENT_SUMMARIES: subjects.tournament_summary(5),
    }
    for pattern, subject in built.items():
        assert [other for other in built.values() if matches(pattern, other)] == [subject]


@pytest.mark.parametrize("table_id", [-1, True, 1.0, "1"])
def test_a_bad_table_id_is_refused(table_id: object) -> None:
    with pytest.raises(ValueError, match="bad table id"):
        subjects.table_commands(table_id)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="bad table id"):
        subjects.lobby_summary(table_id)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["", "a.b", "*", ">", "a b", "é", "x" * 65, 1])
def test_a_gateway_name_must_be_one_plain_token(name: object) -> None:
    with pytest.raises(ValueError, match="bad gateway name"):
        subjects.gateway_out(name)  # type: ignore[arg-type]


def test_an_unknown_broadcast_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown broadcast 'login'"):
        subjects.broadcast("login")


@pytest.mark.parametrize(
    "subject",
    [
        "table.x.cmd",
        "table.+1.cmd",
        "table.١.cmd",
        "table.1",
        "gw.a.b.out",
        "room.login",
        "lobby.table",
        "other",
    ],
)
def test_parsing_refuses_what_is_not_ours(subject: str) -> None:
    with pytest.raises(ValueError):
        subjects.parse(subject)
