"""What the plot scripts share: reading acclab's reports, and a figure written whole or not at
all."""

import json
import os
import tempfile


def load_report(path, fail):
    """An `acclab run --format json` report's document and its results list; `fail(message)`
    reports a file that cannot be read, is not JSON, is not such a report or holds no result
    (and does not return)."""
    try:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
    except OSError as e:
        fail(f"{path}: cannot read ({e.strerror})")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        fail(f"{path}: not JSON ({e})")
    if not isinstance(document, dict) or document.get("schema") != "acclab.run/1":
        fail(f"{path}: not an acclab report (expected \"schema\": \"acclab.run/1\")")
    results = document.get("results")
    if not isinstance(results, list) or not results:
        fail(f"{path}: no results")
    return document, results


def save_whole(fig, target, extension, fail, **savefig_options):
    """Saves `fig` to `target` through a temporary file beside it, renamed once complete, so
    that an interrupted or failed write leaves no half-written figure; `fail(message)` reports
    a write that failed (and does not return)."""
    directory = os.path.dirname(os.path.abspath(target))
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".plot-", suffix="." + extension)
    os.close(handle)
    try:
        fig.savefig(temporary, format=extension, **savefig_options)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp made it private
        os.replace(temporary, target)
    except OSError as e:
        fail(f"{target}: cannot write ({e.strerror})")
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
