#!/usr/bin/env python3
"""Writes receipts-0..3.jsonl: the burst of offline receipt uploads (docs/guides/receipts-burst.md).

Partitions 0-2 are live tills: a receipt every 2 minutes each, 09:05 to 11:41, received 20 s after
it occurred. Partition 3 is one phone: three receipts uploaded live (09:06-09:18), then offline for
two hours; at 11:20 it uploads the 348 receipts it recorded meanwhile (09:22 to 11:18, one every
20 s) in the order it recorded them, except every 25th, whose first upload failed and which is
retried after the rest; then it is live again (11:22 to 11:40). Deterministic: no randomness.
Run it from this folder: python3 generate.py
"""
import json
from datetime import datetime, timedelta, timezone

DAY = datetime(2026, 8, 30, tzinfo=timezone.utc)


def at(h, m, s=0):
    return DAY + timedelta(hours=h, minutes=m, seconds=s)


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def receipt(n, occurred, received):
    # merchants 1-5 and amounts 5.00-99.00, spread by the receipt's number
    return {"merchant_id": 1 + (n * 7 + n // 11) % 5, "amount": float(5 + (n * 37) % 95),
            "occurred_at": iso(occurred), "received_at": iso(received)}


def write(partition, rows):
    with open(f"receipts-{partition}.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


n = 0
for p in range(3):
    rows = []
    t = at(9, 5) + timedelta(seconds=40 * p)
    while t <= at(11, 41):
        n += 1
        rows.append(receipt(n, t, t + timedelta(seconds=20)))
        t += timedelta(minutes=2)
    write(p, rows)

phone = []
for m in (6, 12, 18):
    n += 1
    phone.append(receipt(n, at(9, m), at(9, m, 10)))
burst, retried = [], []
for i in range(348):
    n += 1
    occurred = at(9, 22) + timedelta(seconds=20 * i)
    (retried if i % 25 == 24 else burst).append((n, occurred))
for k, (num, occurred) in enumerate(burst + retried):
    phone.append(receipt(num, occurred, at(11, 20) + timedelta(milliseconds=100 * k)))
for m in range(22, 41, 2):
    n += 1
    phone.append(receipt(n, at(11, m), at(11, m, 10)))
write(3, phone)
