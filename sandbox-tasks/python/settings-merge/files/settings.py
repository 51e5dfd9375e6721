"""Layered settings: defaults, then the site's file, then the environment's overrides."""


def merge(base, override):
    """The settings of `base` with `override` applied on top."""
    result = dict(base)
    result.update(override)
    return result


def layered(*layers):
    """All layers merged in order, the last one winning."""
    result = {}
    for layer in layers:
        result = merge(result, layer)
    return result
