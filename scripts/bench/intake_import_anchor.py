#!/usr/bin/env python3
"""The anchor for `cairn-bench import`: the intake history CSV imported with Python's csv and sqlite3 modules
into a copy of a Cairn vault's database (so the same tables, indexes, checks and foreign keys), doing the same
work per line (the product by name, the wall-clock time in its IANA zone to a UTC instant, the local day, the
line's earlier record looked up among the imported records by product, instant and number, as Cairn does, a
record id, the file's name, the import's run), in one transaction, WAL with
synchronous=FULL (fsynced before it says so). Record ids are increasing version 7 UUIDs, as Cairn's import
makes them, so both sides append to the id indexes (random ids would cost the anchor page reads Cairn avoids).

    intake_import_anchor.py DB FILE.csv   imports FILE.csv into DB, prints "N lines, A added"
"""
import csv
import sqlite3
import sys
import random
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

def connect(path):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("PRAGMA synchronous = FULL")
    return db


def stamp(instant):
    return instant.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (instant.microsecond // 1000)


def run(path, csv_path):
    db = connect(path)
    products = {name.strip().lower(): (pid, rid) for pid, rid, name in
                db.execute("SELECT product_id, id, name FROM regimen_product_revisions ORDER BY number")}
    now = datetime.now(timezone.utc)
    recorded = stamp(now)
    zones = {}
    ordinals = {}
    millis = int(now.timestamp() * 1000) & 0xFFFFFFFFFFFF
    seed = random.getrandbits(61)
    high = "%016x" % (millis << 16 | 0x7000 | (seed >> 49 & 0xFFF))
    high = "%s-%s-%s-" % (high[:8], high[8:12], high[12:])
    source = csv_path.rsplit("/", 1)[-1]
    lines = added = 0
    db.execute("BEGIN IMMEDIATE")
    run_id = db.execute("INSERT INTO regimen_intake_import_runs (started_at) VALUES (?)", (recorded,)).lastrowid
    with open(csv_path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = [h.strip().lower().replace(" ", "") for h in next(reader)]
        at = {name: header.index(name) for name in ("date", "time", "timezone", "product", "amount", "status")}
        for row in reader:
            lines += 1
            zone_name = row[at["timezone"]].strip()
            zone = zones.get(zone_name) or zones.setdefault(zone_name, ZoneInfo(zone_name))
            local = datetime.fromisoformat(row[at["date"]].strip() + "T" + row[at["time"]].strip()).replace(tzinfo=zone)
            instant = local.astimezone(timezone.utc)
            if instant > now:
                raise SystemExit("line %d is in the future" % (lines + 1))
            status = row[at["status"]].strip().lower()
            if status not in ("taken", "skipped"):
                raise SystemExit("line %d has a bad status" % (lines + 1))
            servings = float(row[at["amount"]].strip() or "1")
            product_id, revision_id = products[row[at["product"]].strip().lower()]
            taken_at = stamp(instant)
            moment = (product_id, taken_at)
            ordinals[moment] = ordinals.get(moment, 0) + 1
            if db.execute("""SELECT id FROM regimen_intake INDEXED BY regimen_intake_by_product_time
                          WHERE product_id = ? AND taken_at = ? AND imported_from IS NOT NULL AND supersedes IS NULL
                          ORDER BY rowid LIMIT 1 OFFSET ?""", (product_id, taken_at, ordinals[moment] - 1)).fetchone():
                continue
            low = "%016x" % (0x8000000000000000 | (seed + added + 1))
            record = high + low[:4] + "-" + low[4:]
            db.execute("""INSERT INTO regimen_intake (id, kind, status, product_id, product_revision_id, schedule_revision_id,
                       occurrence_day, occurrence_slot, servings, taken_at, time_zone, local_day, recorded_at, supersedes,
                       imported_from, import_run)
                       VALUES (?, 'extra', ?, ?, ?, NULL, NULL, NULL, ?, ?, ?, ?, ?, NULL, ?, ?)""",
                       (record, status, product_id, revision_id, "%g" % servings, taken_at, zone_name,
                        local.date().isoformat(), recorded, source, run_id))
            added += 1
    db.execute("UPDATE regimen_intake_import_runs SET finished_at = ? WHERE id = ?", (stamp(datetime.now(timezone.utc)), run_id))
    db.execute("COMMIT")
    print("%d lines, %d added" % (lines, added))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    run(sys.argv[1], sys.argv[2])
