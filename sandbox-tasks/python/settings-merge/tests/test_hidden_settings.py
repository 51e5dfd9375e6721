import copy
import unittest

from settings import layered, merge

DEFAULTS = {
    "database": {"host": "localhost", "port": 5432, "pool": {"min": 1, "max": 10}},
    "features": ["search"],
    "debug": False,
}


class MergeTest(unittest.TestCase):
    def test_flat_values_replaced(self):
        self.assertEqual(merge({"a": 1, "b": 2}, {"b": 3, "c": 4}), {"a": 1, "b": 3, "c": 4})

    def test_nested_sections_merge(self):
        merged = merge(DEFAULTS, {"database": {"host": "db2"}})
        self.assertEqual(merged["database"], {"host": "db2", "port": 5432, "pool": {"min": 1, "max": 10}})

    def test_merges_at_any_depth(self):
        merged = merge(DEFAULTS, {"database": {"pool": {"max": 50}}})
        self.assertEqual(merged["database"]["pool"], {"min": 1, "max": 50})
        self.assertEqual(merged["database"]["host"], "localhost")

    def test_lists_are_replaced(self):
        self.assertEqual(merge(DEFAULTS, {"features": ["export"]})["features"], ["export"])

    def test_none_removes_a_key(self):
        merged = merge(DEFAULTS, {"debug": None, "database": {"pool": None}})
        self.assertNotIn("debug", merged)
        self.assertEqual(merged["database"], {"host": "localhost", "port": 5432})

    def test_inputs_untouched_and_not_shared(self):
        base = copy.deepcopy(DEFAULTS)
        override = {"database": {"port": 6543}, "features": ["export"]}
        merged = merge(base, override)
        merged["database"]["pool"]["max"] = 99
        merged["features"].append("beta")
        self.assertEqual(base, DEFAULTS)
        self.assertEqual(override, {"database": {"port": 6543}, "features": ["export"]})

    def test_dictionary_and_plain_value_replace_each_other(self):
        self.assertEqual(merge({"log": "info"}, {"log": {"level": "debug"}}), {"log": {"level": "debug"}})
        self.assertEqual(merge({"log": {"level": "debug"}}, {"log": "off"}), {"log": "off"})

    def test_layered_merges_every_layer(self):
        settings = layered(DEFAULTS, {"database": {"host": "db2"}}, {"database": {"pool": {"min": 5}}})
        self.assertEqual(settings["database"], {"host": "db2", "port": 5432, "pool": {"min": 5, "max": 10}})


if __name__ == "__main__":
    unittest.main()
