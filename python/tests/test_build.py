"""tests/test_build: the in-tree build backend — its TOML reader for Pythons without tomllib reads pyproject.toml as
tomllib does, and build_wheel packs every module of src/searchgym with a RECORD that matches."""
import base64
import hashlib
import os
import sys
import tempfile
import unittest
import zipfile

import support

sys.path.insert(0, os.path.join(os.path.dirname(support.HERE), "_build"))
import searchgym_build  # noqa: E402


class BuildTest(unittest.TestCase):
    def test_toml_subset_reader_equals_tomllib(self):
        try:
            import tomllib
        except ImportError:
            self.skipTest("tomllib needs Python 3.11")
        path = os.path.join(searchgym_build.ROOT, "pyproject.toml")
        with open(path, "rb") as f:
            want = tomllib.load(f)
        with open(path, encoding="utf-8") as f:
            self.assertEqual(searchgym_build._read_toml_subset(f.read()), want)

    def test_wheel_contents_and_record(self):
        with tempfile.TemporaryDirectory() as tmp:
            name = searchgym_build.build_wheel(tmp)
            self.assertEqual(name, "searchgym-0.1.0-py3-none-any.whl")
            with zipfile.ZipFile(os.path.join(tmp, name)) as z:
                names = set(z.namelist())
                modules = {f"searchgym/{n}" for n in os.listdir(os.path.join(support.SRC, "searchgym")) if n.endswith(".py")}
                self.assertLessEqual(modules, names)
                record = z.read("searchgym-0.1.0.dist-info/RECORD").decode().splitlines()
                for line in record:
                    arc, digest, size = line.rsplit(",", 2)
                    if not digest:
                        continue
                    data = z.read(arc)
                    self.assertEqual(digest, "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode())
                    self.assertEqual(int(size), len(data))
                self.assertIn("Requires-Python: >=3.9", z.read("searchgym-0.1.0.dist-info/METADATA").decode())


if __name__ == "__main__":
    unittest.main()
