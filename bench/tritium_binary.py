"""The `tritium` binary the bench scripts run: $TRITIUM, else target/release, else target/debug."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tritium():
    if os.environ.get("TRITIUM"):
        return os.environ["TRITIUM"]
    for profile in ("release", "debug"):
        path = os.path.join(ROOT, "target", profile, "tritium")
        if os.path.exists(path):
            return path
    sys.exit("build tritium first (cargo build --release -p tritium), or set TRITIUM=path/to/tritium")
