"""Money is kept in integer cents; taxes are whole percents per country."""

from __future__ import annotations

# VAT in percent, by ISO 3166 country code.
TAX_RATES = {"de": 19, "fr": 20, "nl": 21, "at": 20, "us": 0}


def tax_rate(country: str) -> int:
    """The VAT percent charged in ``country`` (an ISO code in any case)."""
    code = country.strip().upper()
    return TAX_RATES[code]


def tax_on(cents: int, country: str) -> int:
    """The tax on an amount, rounded half up to the cent."""
    return (cents * tax_rate(country) + 50) // 100


def format_cents(cents: int) -> str:
    """``1999`` -> ``"19.99"``."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100}"
