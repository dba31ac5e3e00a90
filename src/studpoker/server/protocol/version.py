"""The protocol's version and size limit (docs/protocol.md, "Compatibility")."""

from __future__ import annotations

PROTOCOL_VERSION = 1
# Additive changes within version 1 (docs/protocol.md, "Compatibility"): 1 = guests (watching
# without an account), the lobby push (subscribe_lobby), the commitment in table_state, bot flags.
# 2 = the clock on the event that starts a decision (no separate clock event), no ack for an
# action sent without an id (its action event answers it), the paused / resumed table events,
# the unavailable error code. 3 = the fan-out caps (errors too_many_connections,
# too_many_watchers, seat_rate_limited), seats events coalesced (``changes``), a session that
# expires closes its sockets, a lone surrogate anywhere in a message is refused (bad_message).
# 4 = verifiable deals (docs/fairness.md): the deal_commitment table event, client_seed, the deck
# root and seeds in hand_started, cards_opened, table_state.next_deal / openings; hand_finished
# no longer carries the deck order and salt. 5 = ``changes`` on the last event of each batch of
# engine events: the hand's public state (pots, each seat's chips and flags, who is to act) as
# the engine has it, so that a client draws it and works none of it out.
# 6 = seat life (issue 12): every seat change pushed (timed_out, freed), the seats' timed_out,
# sit_out_next_hand and leaving flags, leave_after_hand, the timed_out table event; chips (issue
# 12): add_chips during a hand lands when it ends, auto_top_up, the chips message and
# table_state.your_chips; the wait list: join_wait_list, leave_wait_list, the wait_list message
# (its seat offer), the lobby line's waiting count, the errors seat_offered, seat_free,
# not_waiting and wait_list_full. Table chat: the chat message both ways, table_state.chat and
# table_state.hand_events (the dealer log), the errors chat_not_allowed, chat_invalid,
# chat_too_long, chat_rate_limited, chat_muted and banned. The time bank: bank_ends in every
# clock and your_turn, the seats' time_bank, the seats reason time_bank, and time_bank on the
# action or timeout event of a decision that used the bank. Blinds owed (board games): the
# post_blind message, the seats' owes_big_blind, owes_small_blind and post_blind_now, the seats
# reasons post_blind and blinds. Mixed-game cash tables (issue 16): ``rotation`` (game_now,
# hands_left) on the lobby line and in table_state.table.
# 7 = table_state.timeout_notes: the timed_out events of the hand in progress (a reload says why
# a seat is all-in or sitting out, as the table said it).
PROTOCOL_MINOR = 7
MAX_MESSAGE_BYTES = 4096
