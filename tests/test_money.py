"""Money as text: units (cents) with two decimals, read back exactly, never through a float."""

from __future__ import annotations

import pytest

from studpoker.money import MoneyError, format_money, parse_money


@pytest.mark.parametrize(
    ("units", "text", "trimmed"),
    [
        (0, "0.00", "0"),
        (5, "0.05", "0.05"),
        (50, "0.50", "0.50"),
        (100, "1.00", "1"),
        (123450, "1234.50", "1234.50"),
        (-250, "-2.50", "-2.50"),
        (10**17 + 1, "1000000000000000.01", "1000000000000000.01"),
    ],
)
def test_format(units: int, text: str, trimmed: str) -> None:
    assert format_money(units) == text
    assert format_money(units, trim=True) == trimmed


def test_every_amount_reads_back_exactly() -> None:
    # Amounts a float cannot hold exactly (0.1 + 0.2, 2**53 + 1 cents) come back as they went.
    for units in [*range(0, 2_000), 2**53 + 1, 10**20 + 7]:
        assert parse_money(format_money(units)) == units
        assert parse_money(format_money(units, trim=True)) == units


@pytest.mark.parametrize(
    ("text", "units"),
    [("1,234.50", 123450), ("1234.5", 123450), ("12", 1200), (".5", 50), ("0.05", 5), (" 7.10 ", 710)],
)
def test_parse(text: str, units: int) -> None:
    assert parse_money(text) == units


@pytest.mark.parametrize(
    "text", ["", ".", "1.234", "0.001", "-1", "1e3", "1,23", "12,34.00", "abc", "1.2.3", "$1", "1.5e2"]
)
def test_parse_refuses_what_is_not_an_amount(text: str) -> None:
    with pytest.raises(MoneyError):
        parse_money(text)


def test_format_refuses_a_float() -> None:
    with pytest.raises(TypeError):
        format_money(1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        format_money(True)
