"""What the plot scripts share: a figure written whole or not at all (they read acclab's
reports through run_file.py)."""

import os
import tempfile


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
