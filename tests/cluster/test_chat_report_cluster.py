"""A chat report in the cluster (issue 15, docs/cluster.md "Shared state"): the table's lines
are its owner's, so ``POST /api/tables/{id}/chat/{line}/report`` on a gateway asks the owner for
the line. A line written through gateway 1 is reported through gateway 2 and stored for the
operator; the refusals are the one-process room's (404, 422). The gateways are reached directly
(their addresses in ``cluster.json``)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from studpoker.store import Store
from tests.cluster.conftest import ClusterUp, LaunchCluster
from tests.cluster.test_roles import _owners, _until
from tests.cluster.test_wait_list_cluster import HEADS_UP, account, gateways, ok, seen, two_seat_table

pytestmark = pytest.mark.xdist_group("test_chat_report_cluster")


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def up(launch_cluster: LaunchCluster) -> ClusterUp:
    sets = {"hand_pause_seconds": 0.3, "shutdown_grace_seconds": 1}
    return launch_cluster(gateways=2, workers=2, sets=sets, prepare=two_seat_table)


async def test_a_line_written_on_one_gateway_is_reported_on_another(up: ClusterUp) -> None:
    one, two = gateways(up)
    async with httpx.AsyncClient(base_url=f"http://{two}", timeout=10) as http:
        table_id = int(next(t for t in (await http.get("/api/tables")).json() if t["name"] == HEADS_UP)["id"])

        async def owned() -> bool:
            owner, _, live = (await _owners(up.database_url))[table_id]
            return live and owner is not None

        await _until(owned, "the table's owner", timeout=30)
        async with account(one, "ann") as (ann, ann_token), account(two, "ben") as (ben, ben_token):
            await ok(ann, type="join_table", table_id=table_id)
            await ok(ann, type="sit", table_id=table_id, seat=1, buy_in=2000)
            await ok(ann, type="chat", table_id=table_id, text="you fish")
            said: dict[str, Any] = (await seen(ann, lambda m: m["type"] == "chat"))["line"]
            path = f"/api/tables/{table_id}/chat/{said['id']}/report"
            # Ben, on the other gateway, reports it: stored with the text the owner kept.
            answer = await http.post(path, json={"reason": "insults"}, headers=auth(ben_token))
            assert answer.status_code == 201, answer.text
            again = await http.post(path, headers=auth(ben_token))
            assert (again.status_code, again.json()) == (201, answer.json())
            # The refusals as in one process: her own line, a line the table does not keep.
            assert (await http.post(path, headers=auth(ann_token))).status_code == 422
            missing = await http.post(f"/api/tables/{table_id}/chat/99/report", headers=auth(ben_token))
            assert missing.status_code == 404, missing.text
            assert (
                await http.post("/api/tables/999/chat/1/report", headers=auth(ben_token))
            ).status_code == 404
            assert not ben.closed.is_set()
    store = await Store.open(up.database_url, migrate_schema=False)
    try:
        [report] = await store.moderation.reports()  # the operator's list (studpoker admin reports)
        assert (report.id, report.reporter, report.speaker, report.table_id, report.line_id) == (
            answer.json()["id"], "ben", "ann", table_id, said["id"],
        )  # fmt: skip
        assert (report.text, report.reason) == ("you fish", "insults")
        assert abs(report.said_at.timestamp() - said["at"]) < 0.001
    finally:
        await store.close()
