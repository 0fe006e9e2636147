"""The gallery (docs/gallery.md and docs/gallery/*.png, made by ``python -m jitvision.gallery``): an entry for every
public transform class, the committed page and pictures current, and the page checked in a real headless browser.

The browser check renders docs/gallery.md to HTML with python-markdown (the page is plain Markdown with relative image
links, so it needs no site generator), serves it with the pictures from a local http.server on 127.0.0.1, and loads
it in Debian's chromium (``make browser`` installs it): a small script in the page records, at the load event, each
image's ``naturalWidth`` (0 for a missing or undecodable file), ``--dump-dom`` gives the result back, and
``--screenshot`` saves what the browser drew (SCREENSHOT, printed). A second run on a copy with one picture deleted and
one corrupted proves the check fails on them.
"""

import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

import markdown
import PIL.Image
import pytest
import torch

from jitvision import gallery
from jitvision import transforms as T

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PICTURES = DOCS / "gallery"
SCREENSHOT = Path(os.environ.get("JITVISION_GALLERY_SCREENSHOT", ROOT / "build" / "gallery" / "screenshot.png"))
MAX_TOTAL_BYTES = 5 * 1024 * 1024

pytestmark = pytest.mark.xdist_group("gallery")  # one worker: the generator run and chromium are the heavy parts

# Runs at the load event (after every image has loaded or failed): one [src, naturalWidth] per image.
CHECK_SCRIPT = """
<script>
window.addEventListener("load", () => {
  const images = Array.from(document.images, (image) => [image.getAttribute("src"), image.naturalWidth]);
  const out = document.createElement("pre");
  out.id = "gallery-check";
  out.textContent = JSON.stringify(images);
  document.body.appendChild(out);
});
</script>
"""


def test_every_public_transform_class_has_an_entry():
    names = [entry.name for entry in gallery.ENTRIES]
    assert len(names) == len(set(names)), "an entry appears twice"
    assert sorted(names) == gallery.public_transform_classes()
    assert len(names) >= 60  # the bases are the only public transform classes left out
    for entry in gallery.ENTRIES:
        assert isinstance(gallery.build(entry, gallery._namespace(0)), getattr(T, entry.name)), entry.code


def test_public_transform_classes_leaves_out_only_the_bases():
    classes = {name for name in dir(T) if isinstance(getattr(T, name), type)
               and issubclass(getattr(T, name), torch.nn.Module)}
    assert classes - set(gallery.public_transform_classes()) == set(gallery.BASES)


def test_committed_page_and_pictures_are_current(tmp_path):
    """Regenerates the whole gallery: same page, same set of pictures (pixels may differ by a rounding across
    machines, so they are compared by name and size), and small enough for the repository."""
    code = gallery.main(["--out", str(tmp_path / "gallery"), "--page", str(tmp_path / "gallery.md")])
    assert code == 0
    page = (DOCS / "gallery.md").read_text()
    assert (tmp_path / "gallery.md").read_text() == page, "docs/gallery.md is stale: run make gallery"
    fresh = sorted(path.name for path in (tmp_path / "gallery").glob("*.png"))
    committed = sorted(path.name for path in PICTURES.glob("*.png"))
    assert fresh == committed, "docs/gallery/ is stale: run make gallery"
    for name in committed:
        with PIL.Image.open(PICTURES / name) as old, PIL.Image.open(tmp_path / "gallery" / name) as new:
            assert old.size == new.size, f"{name}: committed {old.size}, regenerated {new.size}: run make gallery"
    assert sum(path.stat().st_size for path in PICTURES.glob("*.png")) < MAX_TOTAL_BYTES


def test_page_links_every_picture_relatively():
    page = (DOCS / "gallery.md").read_text()
    links = re.findall(r"!\[([^\]]*)\]\(([^)]+)\)", page)
    assert [alt for alt, _ in links] == [entry.name for entry in gallery.ENTRIES]
    assert all(target == f"gallery/{alt}.png" for alt, target in links)
    assert page.startswith("# Gallery\n")


# ---- the browser ------------------------------------------------------------------------------------------


def _chromium() -> str:
    for name in (os.environ.get("JITVISION_CHROMIUM", ""), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    pytest.fail("chromium is not installed: run `make browser` (apt-get install chromium)")


def _site(folder: Path, pictures: Path) -> Path:
    """docs/gallery.md as HTML, next to a copy of the pictures, as a site would lay it out."""
    body = markdown.markdown((DOCS / "gallery.md").read_text())
    page = f"<!doctype html><html><head><meta charset='utf-8'><title>Gallery</title></head><body>{body}" \
           f"{CHECK_SCRIPT}</body></html>"
    folder.mkdir(parents=True)
    (folder / "gallery.html").write_text(page)
    shutil.copytree(pictures, folder / "gallery")
    return folder


def _serve(folder: Path) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


def _browse(folder: Path, profile: Path, screenshot: Path | None = None) -> list[tuple[str, int]]:
    """Loads the page in headless chromium: [src, naturalWidth] of every image, and a screenshot if asked."""
    server = _serve(folder)
    url = f"http://127.0.0.1:{server.server_address[1]}/gallery.html"
    # A profile per run: two chromiums on one profile refuse each other. --no-sandbox: CI runs as root.
    common = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
              f"--user-data-dir={profile}", "--virtual-time-budget=20000"]
    try:
        dump = subprocess.run(common + ["--dump-dom", url], capture_output=True, text=True, timeout=180)
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            screenshot.unlink(missing_ok=True)
            subprocess.run(common + [f"--screenshot={screenshot}", "--window-size=1280,2400", url],
                           capture_output=True, text=True, timeout=180, check=True)
    finally:
        server.shutdown()
        server.server_close()
    found = re.search(r'<pre id="gallery-check">(.*?)</pre>', dump.stdout, re.S)
    assert found, f"the page did not load or its script did not run:\n{dump.stdout[-2000:]}\n{dump.stderr[-2000:]}"
    assert "<h1>Gallery</h1>" in dump.stdout
    return [tuple(item) for item in json.loads(html.unescape(found.group(1)))]


def test_gallery_page_loads_every_image_in_chromium(tmp_path):
    site = _site(tmp_path / "site", PICTURES)
    images = _browse(site, tmp_path / "profile", SCREENSHOT)
    assert [src for src, _ in images] == [f"gallery/{entry.name}.png" for entry in gallery.ENTRIES]
    broken = [src for src, width in images if width <= 0]
    assert not broken, f"images that did not load: {broken}"
    with PIL.Image.open(SCREENSHOT) as shot:
        assert shot.size == (1280, 2400)
        assert len(shot.convert("L").getcolors(1 << 16)) > 50  # drawn pictures, not a blank page
    print(f"\ngallery screenshot: {SCREENSHOT}")


def test_browser_check_reports_a_missing_and_a_broken_image(tmp_path):
    pictures = tmp_path / "pictures"
    shutil.copytree(PICTURES, pictures)
    (pictures / "RandomResizedCrop.png").unlink()
    (pictures / "Pad.png").write_bytes(b"\x89PNG\r\n\x1a\n not a picture")
    images = _browse(_site(tmp_path / "site", pictures), tmp_path / "profile")
    broken = sorted(src for src, width in images if width <= 0)
    assert broken == ["gallery/Pad.png", "gallery/RandomResizedCrop.png"]
