"""Layered settings: defaults, then the site's file, then the environment's overrides."""
import copy


def merge(base, override):
    """The settings of `base` with `override` applied on top; None in `override` removes a key."""
    result = copy.deepcopy(base)
    for key, value in override.items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict):
            below = result.get(key)
            result[key] = merge(below if isinstance(below, dict) else {}, value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def layered(*layers):
    """All layers merged in order, the last one winning."""
    result = {}
    for layer in layers:
        result = merge(result, layer)
    return result
