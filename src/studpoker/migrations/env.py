"""Alembic environment. The store runs migrations in code (``studpoker.store.migrate``) and hands
the connection over in ``config.attributes["connection"]``; the ``alembic`` command works too,
with ``sqlalchemy.url`` set to an async URL (``sqlite+aiosqlite://...``, ``postgresql+asyncpg://...``).
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from studpoker.store.schema import metadata

config = context.config


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_async(url: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_run)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()
else:
    given = config.attributes.get("connection")
    if given is not None:
        _run(given)
    else:
        asyncio.run(_run_async(config.get_main_option("sqlalchemy.url") or ""))
