"""How numbers are written and read back: values with their unit, ratios, --factor."""
import math

SECONDS_SCALE = ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns"))
BYTES_SCALE = ((2 ** 30, "GiB"), (2 ** 20, "MiB"), (2 ** 10, "KiB"), (1, "B"))


def human_value(value, unit):
    """A number with its unit scaled for reading: 5.18e-05 seconds -> '51.8us'."""
    if value is None or value == "":
        return ""
    if isinstance(value, float) and math.isnan(value):
        return "n/a"
    scale = {"seconds": SECONDS_SCALE, "bytes": BYTES_SCALE}.get(unit)
    if not scale:
        return "%.4g" % value
    for factor, name in scale:
        if abs(value) >= factor:
            return "%.3g%s" % (value / factor, name)
    factor, name = scale[-1]
    return "%.3g%s" % (value / factor, name)


def seconds_text(value):
    """A time in seconds for reading ('' where there is none): 5.18e-05 -> '51.8us'."""
    return human_value(value, "seconds")


def milliseconds_text(value):
    """A time in seconds as milliseconds, two decimals, for columns headed 'ms'."""
    return "" if value is None else "%.2f" % (value * 1e3)


def quotient(a, b):
    """a / b, or None where either is missing or b is not above 0."""
    if a is None or b is None or not b > 0:
        return None
    return a / b


def ratio_text(ratio):
    """Two decimals, or two significant digits below 0.1 (a 200x speed-up is not '0.00');
    '' where there is no ratio."""
    if ratio is None:
        return ""
    return "%.2f" % ratio if ratio >= 0.1 else "%.2g" % ratio


def change_text(before, after, unit):
    """A move of one point: '51.8us -> 60.1us (1.16x)'."""
    return "%s -> %s (%sx)" % (human_value(before, unit), human_value(after, unit),
                               ratio_text(quotient(after, before)))
