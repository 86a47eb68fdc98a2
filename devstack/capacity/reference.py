"""The reference workloads of docs/capacity.md costed monthly from a `--mix all --json FILE`
report: `python -m devstack.capacity.reference FILE`. Pure arithmetic over the measured cost per
million of each workload, with the month's volumes assumed below (per contact, per month).

Assumptions (docs/capacity.md says why): 4 emails sent per contact a month (the issue's 1M
contacts with 4M emails); 5 site-tracking hits per contact (pixel and landing pages, new and known
visitors in the `tracking` shares); 2 API requests of the `mix` per contact (integrations and
the UI); 5 % of the contacts new by import each month. Storage: STORED_PER_CONTACT bytes per
contact (its item, unique email, index entries and a few events) and STORED_PER_EMAIL per email
sent (send record, SES message note, segment-send row, timeline event, feed entry), kept a year.
"""

from __future__ import annotations

import json
import sys
from typing import Any

REFERENCES = {"10k contacts": 10_000, "1M contacts, 4M emails a month": 1_000_000, "10M contacts": 10_000_000}
PER_CONTACT = {"segment-send": 4.0, "tracking": 5.0, "mix": 2.0, "import": 0.05}  # units of work a month
STORED_PER_CONTACT = 1_600  # bytes, measured item sizes (docs/capacity.md)
STORED_PER_EMAIL = 1_800
MONTHS_KEPT = 12
STORAGE_GB_MONTH = 0.25  # DynamoDB standard table class, us-east-1, past the first 25 GB


def monthly(contacts: int, per_million: dict[str, float]) -> dict[str, float]:
    """Dollars a month for `contacts`, by workload and storage, from each workload's cost per million."""
    lines = {name: contacts * share * per_million[name] / 1e6 for name, share in PER_CONTACT.items()}
    stored = contacts * (STORED_PER_CONTACT + PER_CONTACT["segment-send"] * MONTHS_KEPT * STORED_PER_EMAIL)
    lines["storage"] = stored / 1e9 * STORAGE_GB_MONTH
    lines["total"] = sum(lines.values())
    return lines


def costs(results: list[dict[str, Any]]) -> dict[str, float]:
    """Each workload's total cost per million units, from the JSON report."""
    return {result["workload"]: float(result["cost_per_million"]["total"]) for result in results}


def main(argv: list[str]) -> int:
    """Print the reference workloads' monthly cost from the JSON report named in `argv`."""
    with open(argv[0]) as handle:
        per_million = costs(json.load(handle))
    for name, contacts in REFERENCES.items():
        lines = monthly(contacts, per_million)
        shown = ", ".join(f"{line} ${dollars:,.2f}" for line, dollars in lines.items() if line != "total")
        print(f"{name}: ${lines['total']:,.2f} a month ({shown})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
