"""mkdocs hooks of the documentation site (mkdocs.yml: ``hooks``).

- The API reference is generated: one page per family of public names (``api/*.md``), each a list of mkdocstrings
  ``::: path`` blocks. The names come from the package's ``__init__`` modules, read statically with griffe (no
  import, so the build needs neither torch nor the native library), and the family from the module that defines
  the name. A public name added to ``jitvision.transforms`` or its functional module appears without editing a
  page; a name whose module is in no family lands on the family page "Other" of its package, and a name griffe
  cannot resolve fails the build (a warning under ``--strict``).
- Optional pages: the pages of ``OPTIONAL_PAGES`` join the nav only when their file exists under docs/, so the nav
  never names a missing file (mkdocs fails on that) and needs no edit when one is added.
"""

from __future__ import annotations

import logging
import os
from collections import defaultdict
from typing import Any

import griffe
from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.plugins.jitvision")

# (nav section, title, file under docs/): appended to that section, in this order, when the file exists; the
# page's own top-level `# Title` names it in the nav when it has one.
OPTIONAL_PAGES: list[tuple[str, str, str]] = [
    ("User guide", "GPU and other devices", "gpu.md"),
    ("User guide", "Reading images and videos", "io.md"),
    ("User guide", "Compiling: notes", "compile-notes.md"),
    ("User guide", "PIL inputs on the native kernels", "pil-path.md"),
    ("User guide", "Per-transform rows", "per-transform.md"),
    ("User guide", "Scale-out with Ray Data", "ray.md"),
    ("Migrating from torchvision", "Migration helpers", "migration-helpers.md"),
    ("Migrating from torchvision", "torchvision's test suite", "tvsuite.md"),
    ("Gallery", "Gallery", "gallery.md"),
]

# Family pages: (package, page file, title, module prefixes under the package that belong to the family). A name
# goes to the first family whose prefix its defining module starts with.
FAMILIES: list[tuple[str, str, str, tuple[str, ...]]] = [
    ("jitvision.transforms", "transforms-geometry.md", "Transforms: geometry",
     ("_geometry", "functional._geometry")),
    ("jitvision.transforms", "transforms-color.md", "Transforms: colour", ("_color",)),
    ("jitvision.transforms", "transforms-policies.md", "Transforms: augmentation policies",
     ("_auto_augment", "_augment_ops")),
    ("jitvision.transforms", "transforms-filters.md", "Transforms: blur, noise, erasing, JPEG, mixing",
     ("_filters", "_erasing", "_jpeg", "_mix")),
    ("jitvision.transforms", "transforms-boxes.md", "Transforms: boxes, keypoints, queries",
     ("_meta", "_sanitize", "_query")),
    ("jitvision.transforms", "transforms-conversion.md", "Transforms: conversion, normalisation, video",
     ("_type_conversion", "_misc", "_deprecated", "_temporal")),
    ("jitvision.transforms", "transforms-containers.md", "Transforms: Compose, containers, base classes, compile",
     ("_container", "_random_containers", "_transform", "_compile", "_script_fusion", "_fusion", "_seeding")),
    ("jitvision.transforms.functional", "functional-geometry.md", "Functional: geometry", ("_geometry",)),
    ("jitvision.transforms.functional", "functional-color.md", "Functional: colour", ("_color",)),
    ("jitvision.transforms.functional", "functional-filters.md", "Functional: blur, noise, erasing, JPEG",
     ("_blur", "_noise", "_erase", "_jpeg")),
    ("jitvision.transforms.functional", "functional-boxes.md", "Functional: boxes, keypoints, sizes",
     ("_meta", "_rotated", "_sanitize", "_size")),
    ("jitvision.transforms.functional", "functional-conversion.md", "Functional: conversion, normalisation, video",
     ("_type_conversion", "_misc", "_deprecated", "_temporal")),
    ("jitvision.transforms.functional", "functional-dispatch.md", "Functional: dispatch and kernel registry",
     ("_dispatch",)),
    ("jitvision.tv_tensors", "tv_tensors.md", "tv_tensors", ("",)),
    ("jitvision", "package.md", "jitvision (package)", ("",)),
    ("jitvision.onnx", "onnx.md", "jitvision.onnx", ("",)),
    ("jitvision.aoti", "aoti.md", "jitvision.aoti", ("",)),
]

# Pages for names of a package that no family claims.
OTHER_PAGES = {
    "jitvision.transforms": ("transforms-other.md", "Transforms: other"),
    "jitvision.transforms.functional": ("functional-other.md", "Functional: other"),
}

API_DIR = "api"


def _public_names(module: griffe.Module) -> list[str]:
    """The names a user imports from ``module``: its ``__all__`` if it has one, else every member whose name does
    not start with an underscore, submodules left out."""
    exports = module.exports
    if exports is not None:
        candidates = [name if isinstance(name, str) else name.name for name in exports]
    else:
        candidates = [name for name in module.members if not name.startswith("_")]
    names = []
    for name in candidates:
        member = module.members.get(name)
        if member is None:
            log.warning("API reference: %s.%s is in __all__ but not defined", module.path, name)
            continue
        try:
            if member.is_module:
                continue
        except griffe.AliasResolutionError:
            pass  # an alias into another package (a third-party import): reported when rendered, if listed
        names.append(name)
    return names


def _defining_module(member: Any, package: str) -> str:
    """The module that defines ``member``, relative to ``package`` ("" when it is the package itself)."""
    path = member.target_path if isinstance(member, griffe.Alias) else member.path
    module = path.rsplit(".", 1)[0]
    if module == package:
        return ""
    for root in (package + ".", "jitvision.transforms."):
        if module.startswith(root):
            return module[len(root):]
    return module


def _api_pages(root: str) -> dict[str, tuple[str, list[str]]]:
    """``{page file: (title, [dotted paths])}`` for every public name of the documented packages."""
    loader = griffe.GriffeLoader(search_paths=[root])
    jitvision = loader.load("jitvision")
    loader.resolve_aliases(implicit=False, external=False)
    pages: dict[str, tuple[str, list[str]]] = {}
    for _, page, title, _ in FAMILIES:
        pages.setdefault(page, (title, []))
    packages = sorted({package for package, *_ in FAMILIES})
    for package in packages:
        module = jitvision if package == "jitvision" else jitvision[package.removeprefix("jitvision.")]
        ranked: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
        for name in _public_names(module):
            member = module.members[name]
            where = _defining_module(member, package)
            page = next(
                (p for pkg, p, _, prefixes in FAMILIES
                 if pkg == package and any(where.startswith(prefix) for prefix in prefixes)),
                None,
            )
            if page is None:
                page, title = OTHER_PAGES.get(package, (package.replace(".", "-") + ".md", package))
                pages.setdefault(page, (title, []))
            try:
                line = member.lineno or 0
            except griffe.AliasResolutionError:
                line = 0
            ranked[page].append((where, line, f"{package}.{name}"))
        for page, entries in ranked.items():
            pages[page][1].extend(path for _, _, path in sorted(entries))
    return {page: content for page, content in pages.items() if content[1]}


def _render(title: str, paths: list[str]) -> str:
    blocks = [f"# {title}\n"]
    for path in paths:
        blocks.append(f"::: {path}\n    options:\n      heading_level: 2\n")
    return "\n".join(blocks)


def _nav_section(nav: list[Any], title: str) -> list[Any]:
    """The list of the nav section called ``title``, created at the end of the nav if absent."""
    for entry in nav:
        if isinstance(entry, dict) and title in entry:
            section = entry[title]
            if not isinstance(section, list):  # a single page: make it a section holding that page
                section = entry[title] = [{title: section}]
            return section
    section: list[Any] = []
    nav.append({title: section})
    return section


def _page_title(path: str) -> str | None:
    """The page's own top-level ``# Title``, if its first heading is one."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("# "):
                return line[2:].strip() or None
            if line.startswith("#"):
                return None
    return None


_GENERATED: dict[str, tuple[str, list[str]]] = {}


def on_config(config: Any) -> Any:
    root = os.path.dirname(config.config_file_path)
    _GENERATED.clear()
    _GENERATED.update(_api_pages(root))
    nav = config.nav
    for section, title, page in OPTIONAL_PAGES:
        path = os.path.join(config.docs_dir, page)
        if os.path.exists(path):
            _nav_section(nav, section).append({_page_title(path) or title: page})
    api = _nav_section(nav, "API reference")
    for page, (title, _) in _GENERATED.items():
        api.append({title: f"{API_DIR}/{page}"})
    return config


def on_files(files: Files, config: Any) -> Files:
    for page, (title, paths) in _GENERATED.items():
        files.append(File.generated(config, f"{API_DIR}/{page}", content=_render(title, paths)))
    return files


# Pages written by `python -m jitvision audit --markdown`: their error messages are quoted verbatim, and a message
# holding ``x['inputs'][0]`` reads as a Markdown reference link. Escaped here rather than in the report, which
# stays plain text for terminals.
GENERATED_PAGES = ("audit-jitvision.md", "audit-torchvision.md")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    if page.file.src_uri in GENERATED_PAGES:
        return markdown.replace("][", "]\\[")
    return markdown
