"""searchgym_build: the PEP 517 / PEP 660 build backend of python/ (standard library only), so that
`pip install ./python` works offline without setuptools or wheel.

Reads [project] from pyproject.toml (name, version, description, readme, requires-python, optional-dependencies) and
packs src/searchgym into a pure-Python wheel; build_editable writes a wheel holding one .pth file that points at src/.
Knows nothing of the package's code.
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
TAG = "py3-none-any"
# Fixed timestamps: the same source gives the same wheel bytes.
EPOCH = (1980, 1, 1, 0, 0, 0)


def _project() -> dict:
    path = os.path.join(ROOT, "pyproject.toml")
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        return _read_toml_subset(open(path, encoding="utf-8").read())["project"]
    with open(path, "rb") as f:
        return tomllib.load(f)["project"]


def _read_toml_subset(text: str) -> dict:
    """The TOML this pyproject uses (tables, "strings", [lists of strings]), for Pythons before tomllib (3.9, 3.10)."""
    out: dict = {}
    table = out
    for raw in text.splitlines():
        line = raw.split(" #")[0].strip() if not raw.strip().startswith("#") else ""
        if not line:
            continue
        m = re.fullmatch(r"\[([A-Za-z0-9_.-]+)\]", line)
        if m:
            table = out
            for part in m.group(1).split("."):
                table = table.setdefault(part, {})
            continue
        key, _, value = (s.strip() for s in line.partition("="))
        table[key] = [v for v in re.findall(r'"([^"]*)"', value)] if value.startswith("[") else value.strip('"')
    return out


def _dist_name(p: dict) -> str:
    return re.sub(r"[-_.]+", "_", p["name"]).lower()


def _metadata(p: dict) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}", f"Summary: {p.get('description', '')}"]
    if p.get("requires-python"):
        lines.append(f"Requires-Python: {p['requires-python']}")
    for dep in p.get("dependencies", []):
        lines.append(f"Requires-Dist: {dep}")
    for extra, deps in sorted(p.get("optional-dependencies", {}).items()):
        lines.append(f"Provides-Extra: {extra}")
        lines.extend(f'Requires-Dist: {d}; extra == "{extra}"' for d in deps)
    body = ""
    if p.get("readme"):
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(ROOT, p["readme"]), encoding="utf-8") as f:
            body = "\n" + f.read()
    return "\n".join(lines) + "\n" + body


def _wheel_file() -> str:
    return f"Wheel-Version: 1.0\nGenerator: searchgym_build\nRoot-Is-Purelib: true\nTag: {TAG}\n"


def _package_files() -> list:
    files = []
    for base, dirs, names in os.walk(os.path.join(SRC, "searchgym")):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for n in sorted(names):
            if n.endswith(".py") or n == "py.typed":
                full = os.path.join(base, n)
                files.append((os.path.relpath(full, SRC).replace(os.sep, "/"), full))
    return files


def _write_wheel(directory: str, entries: list) -> str:
    """entries: [(archive name, bytes)]; the dist-info's METADATA, WHEEL and RECORD are added."""
    p = _project()
    dist = f"{_dist_name(p)}-{p['version']}"
    info = f"{dist}.dist-info"
    entries = entries + [(f"{info}/METADATA", _metadata(p).encode()), (f"{info}/WHEEL", _wheel_file().encode())]
    record = []
    name = f"{dist}-{TAG}.whl"
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in entries:
            zi = zipfile.ZipInfo(arc, EPOCH)
            zi.external_attr = 0o644 << 16
            z.writestr(zi, data, zipfile.ZIP_DEFLATED)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{arc},sha256={digest},{len(data)}")
        record.append(f"{info}/RECORD,,")
        zi = zipfile.ZipInfo(f"{info}/RECORD", EPOCH)
        zi.external_attr = 0o644 << 16
        z.writestr(zi, "\n".join(record) + "\n", zipfile.ZIP_DEFLATED)
    return name


# -- PEP 517 ---------------------------------------------------------------------------------------------------------
def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    p = _project()
    info = f"{_dist_name(p)}-{p['version']}.dist-info"
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(p))
    with open(os.path.join(metadata_directory, info, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_file())
    return info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    entries = []
    for arc, full in _package_files():
        with open(full, "rb") as f:
            entries.append((arc, f.read()))
    return _write_wheel(wheel_directory, entries)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [("searchgym_editable.pth", (SRC + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    base = f"{_dist_name(p)}-{p['version']}"
    name = f"{base}.tar.gz"
    keep = ["pyproject.toml", "README.md", "_build/searchgym_build.py"] + ["src/" + arc for arc, _ in _package_files()]
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for rel in keep:
            data = open(os.path.join(ROOT, rel), "rb").read()
            ti = tarfile.TarInfo(f"{base}/{rel}")
            ti.size, ti.mode, ti.mtime = len(data), 0o644, 315532800
            t.addfile(ti, io.BytesIO(data))
        pkg_info = _metadata(p).encode()
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size, ti.mode, ti.mtime = len(pkg_info), 0o644, 315532800
        t.addfile(ti, io.BytesIO(pkg_info))
    return name
