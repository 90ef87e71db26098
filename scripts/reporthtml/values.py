"""Numbers and text as the page shows them (the values themselves are read through
run_file.py)."""
import html

from run_file import text


def esc(value):
    return html.escape(text(value), quote=True)


def seconds_text(s):
    """As acclab's tables print times: three significant digits in s, ms, µs or ns."""
    if s is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def fixed(value, digits):
    return "-" if value is None else f"{value:.{digits}f}"


def rate_text(gflops):
    return f"{gflops / 1e3:.1f} TFLOP/s" if gflops >= 1e3 else f"{gflops:.1f} GFLOP/s"

