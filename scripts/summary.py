"""Counts the results of the meson test runs named on the command line and
prints the closing 'N passed, N failed' line.  A skipped test counts as
failed: nothing may be skipped silently."""
import json
import os
import sys

passed = failed = 0
for d in sys.argv[1:]:
    log = os.path.join(d, "meson-logs", "testlog.json")
    if not os.path.exists(log):
        print(f"{d}: no test log (build failed?)")
        failed += 1
        continue
    with open(log) as f:
        for line in f:
            r = json.loads(line)
            ok = r["result"] in ("OK", "EXPECTEDFAIL")
            if not ok:
                print(f"{d}: {r['name']}: {r['result']}")
            passed += ok
            failed += not ok
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed or not passed else 0)
