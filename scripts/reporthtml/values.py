"""Values as the result files hold them, and as the page shows them."""
import html
import json
import math


def number(value):
    """A finite number, or None for anything else (null, text, true/false, NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def text(value):
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


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

