"""Player notes and colour tags, and the caller's keyboard shortcuts and auto top-up, over REST
(docs/client.md "Player notes", "Keyboard shortcuts" and "Chips"; the rules are
:mod:`studpoker.store.notes`).

Every route needs a session and reads or writes the caller's own records only: there is no way
to read another account's notes.
"""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field, StrictBool

from studpoker.store.notes import DEFAULT_SHORTCUTS, PALETTE, PlayerNote, PlayerNotes, Preferences

from .deps import RESPONSES, CurrentAccount, room_of

router = APIRouter(tags=["notes"])


class NoteIn(BaseModel):
    text: str = Field(
        default="", description="the note (at most `note_max_chars`); may be empty with a colour"
    )
    colour: str | None = Field(
        default=None, description=f"a colour tag: one of {', '.join(PALETTE)}, or null"
    )


class NoteOut(BaseModel):
    player: str
    account_id: int = Field(description="the player's account id (as in the seat lists)")
    text: str
    colour: str | None
    updated_at: datetime


class NotesOut(BaseModel):
    notes: list[NoteOut] = Field(description="every note you wrote, by player name")
    palette: list[str] = Field(description="the colours a tag may take")
    max_chars: int = Field(description="the longest note text")
    max_notes: int = Field(description="the most notes an account keeps")


class PreferencesIn(BaseModel):
    shortcuts: dict[str, str] = Field(
        description=(
            "{action: key}: the actions to bind (the others keep their defaults);"
            " a key is one character, '' for none"
        )
    )


class PreferencesOut(BaseModel):
    shortcuts: dict[str, str] = Field(description="every action's key ('' for none)")
    defaults: dict[str, str] = Field(description="the room's default keys")


class AutoTopUpPreference(BaseModel):
    auto_top_up: StrictBool = Field(
        description="your seats are topped up to their buy-in before each hand (the client asks each table)"
    )


def _notes(request: Request) -> PlayerNotes:
    """The app's notes, on its store's database and with the room's limits (made on first use)."""
    store = room_of(request).store
    state = request.app.state
    notes: PlayerNotes | None = getattr(state, "player_notes", None)
    if notes is None or notes.db is not store.database:
        settings = state.settings
        notes = PlayerNotes(
            store.database, max_chars=settings.note_max_chars, max_notes=settings.notes_per_account
        )
        state.player_notes = notes
    return notes


def _preferences(request: Request) -> Preferences:
    return Preferences(room_of(request).store.database)


def _note_out(note: PlayerNote) -> NoteOut:
    return NoteOut(
        player=note.player,
        account_id=note.player_id,
        text=note.text,
        colour=note.colour,
        updated_at=note.updated_at,
    )


@router.get("/api/notes", response_model=NotesOut, responses=RESPONSES)
async def my_notes(request: Request, account: CurrentAccount) -> NotesOut:
    """Every note and tag you keep, with the palette and the limits."""
    notes = _notes(request)
    return NotesOut(
        notes=[_note_out(n) for n in await notes.notes(account.id)],
        palette=list(PALETTE),
        max_chars=notes.max_chars,
        max_notes=notes.max_notes,
    )


@router.get("/api/notes/{player_name}", response_model=NoteOut, responses=RESPONSES)
async def get_note(player_name: str, request: Request, account: CurrentAccount) -> NoteOut:
    """Your note on a player; 404 for an unknown player or when you have none on him."""
    return _note_out(await _notes(request).note(account.id, player_name))


@router.put("/api/notes/{player_name}", response_model=NoteOut, responses=RESPONSES)
async def put_note(player_name: str, body: NoteIn, request: Request, account: CurrentAccount) -> NoteOut:
    """Write or replace your note on a player: 422 for a text too long, a colour off the palette,
    neither text nor colour, or yourself; 409 `too_many_notes` past `notes_per_account`."""
    note = await _notes(request).set_note(account.id, player_name, text=body.text, colour=body.colour)
    return _note_out(note)


@router.delete("/api/notes/{player_name}", status_code=204, responses=RESPONSES)
async def delete_note(player_name: str, request: Request, account: CurrentAccount) -> Response:
    """Remove your note on a player; 404 when there is none."""
    await _notes(request).delete_note(account.id, player_name)
    return Response(status_code=204)


@router.get("/api/me/preferences", response_model=PreferencesOut, responses=RESPONSES)
async def my_preferences(request: Request, account: CurrentAccount) -> PreferencesOut:
    """Your keyboard shortcuts (every action's key) and the room's defaults."""
    shortcuts = await _preferences(request).shortcuts(account.id)
    return PreferencesOut(shortcuts=shortcuts, defaults=dict(DEFAULT_SHORTCUTS))


@router.put("/api/me/preferences", response_model=PreferencesOut, responses=RESPONSES)
async def put_preferences(body: PreferencesIn, request: Request, account: CurrentAccount) -> PreferencesOut:
    """Bind your shortcuts: known actions only, one character each, no key for two actions
    (else 422, nothing saved). Actions left out get their default key; `{}` restores them all."""
    shortcuts = await _preferences(request).set_shortcuts(account.id, body.shortcuts)
    return PreferencesOut(shortcuts=shortcuts, defaults=dict(DEFAULT_SHORTCUTS))


@router.get("/api/me/preferences/auto-top-up", response_model=AutoTopUpPreference, responses=RESPONSES)
async def my_auto_top_up(request: Request, account: CurrentAccount) -> AutoTopUpPreference:
    """Whether your seats top up to their buy-in before each hand (off until you turn it on)."""
    return AutoTopUpPreference(auto_top_up=await _preferences(request).auto_top_up(account.id))


@router.put("/api/me/preferences/auto-top-up", response_model=AutoTopUpPreference, responses=RESPONSES)
async def put_auto_top_up(
    body: AutoTopUpPreference, request: Request, account: CurrentAccount
) -> AutoTopUpPreference:
    """Turn your auto top-up on or off (true or false, else 422); your shortcuts stay as they are."""
    on = await _preferences(request).set_auto_top_up(account.id, body.auto_top_up)
    return AutoTopUpPreference(auto_top_up=on)
