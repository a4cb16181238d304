#!/usr/bin/env bash
# Writes Tests/StorageTests/Fixtures/<id>.sqlite for every migration in CairnSchema.migrations that has no
# fixture yet (a landed fixture is never overwritten). Run it after appending a migration and its sample rows
# (CairnSchemaTests.sampleRows), then commit the new file.
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_THREAD_LIMIT=1
CAIRN_WRITE_FIXTURE=1 swift test --filter 'StorageTests.CairnSchemaTests/writeMissingFixtures'
ls -l Tests/StorageTests/Fixtures/*.sqlite
